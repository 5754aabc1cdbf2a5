// A server built on the official TypeScript SDK (@modelcontextprotocol/server
// 2.x), for chapter 15's host (tests/peers/host-15.sh): the same three tools
// as python_server_15.py. Its tools ask back the way each era asks: in
// 2025-11-25 a request on the connection (elicitInput, requestSampling); in
// 2026-07-28 an input-required result, answered by the host's retry. The
// third reports progress, adds a tool and says the list changed.
//
// host-15.sh copies this file into .peers/node, where its imports resolve.
// Run on stdio: node ts_server_15.mjs
import * as z from 'zod';
import { McpServer, PROTOCOL_VERSION_META_KEY, acceptedContent, inputRequired } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

const FORM = z.object({ confirm: z.boolean() });

// A request of 2026-07-28 carries the revision in its `_meta` envelope.
const modern = (ctx) => ctx.mcpReq.envelope?.[PROTOCOL_VERSION_META_KEY] === '2026-07-28';
const text = (value) => ({ content: [{ type: 'text', text: value }] });

async function progress(ctx, progress, total, message) {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    if (progressToken === undefined) return;
    await ctx.mcpReq.notify({
        method: 'notifications/progress',
        params: { progressToken, progress, total, message }
    });
}

serveStdio(() => {
    const server = new McpServer(
        { name: 'typescript-sdk-asking', version: '0.1.0' },
        { capabilities: { tools: { listChanged: true } } }
    );

    server.registerTool(
        'publish',
        { description: 'Publishes a draft once the user confirms it.', inputSchema: z.object({ draft: z.string() }) },
        async ({ draft }, ctx) => {
            let action, content;
            if (modern(ctx)) {
                const answer = ctx.mcpReq.inputResponses?.confirm;
                if (!answer) {
                    return inputRequired({
                        inputRequests: {
                            confirm: inputRequired.elicit({ message: `Publish ${draft}?`, requestedSchema: FORM })
                        },
                        requestState: 'round-1'
                    });
                }
                action = answer.action;
                content = acceptedContent(ctx.mcpReq.inputResponses, 'confirm') ?? {};
            } else {
                const result = await ctx.mcpReq.elicitInput({
                    message: `Publish ${draft}?`,
                    requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] }
                });
                action = result.action;
                content = result.content ?? {};
            }
            return text(action === 'accept' && content.confirm ? `Published ${draft}.` : `Not published: ${action}.`);
        }
    );

    server.registerTool(
        'summarize',
        { description: "Summarizes a text with the client's model.", inputSchema: z.object({ text: z.string() }) },
        async (args, ctx) => {
            const params = {
                messages: [{ role: 'user', content: { type: 'text', text: `Summarize: ${args.text}` } }],
                maxTokens: 100
            };
            if (modern(ctx)) {
                const answer = ctx.mcpReq.inputResponses?.summary;
                if (!answer) {
                    return inputRequired({
                        inputRequests: { summary: inputRequired.createMessage(params) },
                        requestState: 'round-1'
                    });
                }
                return text(`Summary: ${answer.content.text}`);
            }
            const reply = await ctx.mcpReq.requestSampling(params);
            return text(`Summary: ${reply.content.text}`);
        }
    );

    server.registerTool(
        'grow',
        { description: 'Adds a tool, reporting progress on the way, and says the list changed.' },
        async (ctx) => {
            await progress(ctx, 1, 2, 'adding shrink');
            server.registerTool(
                'shrink',
                {
                    description: 'Shortens a text to its first word (added while the session runs).',
                    inputSchema: z.object({ text: z.string() })
                },
                async (args) => text(args.text.split(/\s+/)[0] ?? '')
            );
            // registerTool announces the change itself (listChanged: true):
            // on the connection in 2025-11-25, on subscriptions/listen
            // streams in 2026-07-28.
            await progress(ctx, 2, 2, 'added');
            return text('Added the tool shrink.');
        }
    );
    return server;
});
