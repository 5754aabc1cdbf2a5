//! Who hears about a change. 2026-07-28: a client opens
//! `subscriptions/listen` with a filter, the server acknowledges it first,
//! and every notification on it carries the listen request's id as
//! `subscriptionId`; nothing else is ever sent unasked. 2025-11-25: a
//! connection that declared nothing still hears `list_changed` for the
//! capability we declared, and `resources/updated` for the URIs it named
//! in `resources/subscribe`. Their types are given (`long_work`).

use serde_json::{Map, Value, json};

use crate::jsonrpc::RpcError;
use crate::long_work::{Change, Filter, Notification, SUBSCRIPTION_ID, Subscription, notification};

// ANCHOR: deliver
/// The notification `subscription` gets for `change`, or `None` when its
/// filter did not ask for it.
pub fn deliver(subscription: &Subscription, change: &Change) -> Option<Notification> {
    // TODO(ch16/deliver): `Change::Tools` is
    // "notifications/tools/list_changed", only for a filter with
    // `tools_list_changed`; `Change::Updated(uri)` is
    // "notifications/resources/updated" with params `{"uri": uri}`, only
    // for a filter whose `resource_subscriptions` holds the uri. A
    // 2026-07-28 subscription (an `id`) adds `_meta` with its id under
    // `SUBSCRIPTION_ID` to the params; a 2025-11-25 one adds nothing.
    let _ = (subscription, change, SUBSCRIPTION_ID, notification);
    None
    // END(ch16/deliver)
}
// ANCHOR_END: deliver

/// Every notification that `subscriptions` get for `changes`.
pub fn for_all<'a>(
    subscriptions: impl IntoIterator<Item = &'a Subscription>,
    changes: &[Change],
) -> Vec<Notification> {
    let mut notifications = Vec::new();
    for subscription in subscriptions {
        notifications.extend(
            changes
                .iter()
                .filter_map(|change| deliver(subscription, change)),
        );
    }
    notifications
}

// ANCHOR: listen
/// A `subscriptions/listen` request (2026-07-28): the subscription, with
/// what of its filter we honour, and the acknowledgment to send first.
pub fn listen(
    id: &Value,
    params: Option<&Value>,
) -> Result<(Subscription, Notification), RpcError> {
    crate::modern::check_meta(params)?;
    let asked = params
        .and_then(|params| params.get("notifications"))
        .cloned();
    let filter: Filter = serde_json::from_value(asked.unwrap_or_else(|| json!({})))
        .map_err(|err| RpcError::invalid_params(format!("notifications: {err}")))?;
    let params = json!({ "_meta": { SUBSCRIPTION_ID: id }, "notifications": filter });
    let ack = notification("notifications/subscriptions/acknowledged", params);
    let subscription = Subscription {
        id: Some(id.clone()),
        filter,
    };
    Ok((subscription, ack))
}
// ANCHOR_END: listen

/// A 2025-11-25 connection's subscription: `list_changed` always (we
/// declared it), updates for the URIs `resources/subscribe` named.
pub fn legacy() -> Subscription {
    let filter = Filter {
        tools_list_changed: true,
        resource_subscriptions: Vec::new(),
    };
    Subscription { id: None, filter }
}

/// `resources/subscribe` and `resources/unsubscribe` (2025-11-25): the
/// connection's subscription gains or loses the URI; the result is empty.
pub fn subscribe(
    subscription: &mut Subscription,
    method: &str,
    params: Option<&Value>,
) -> Result<Value, RpcError> {
    let uri = params.and_then(|params| params["uri"].as_str());
    let uri = uri.ok_or_else(|| RpcError::invalid_params(format!("{method} needs a uri")))?;
    let uris = &mut subscription.filter.resource_subscriptions;
    uris.retain(|known| known != uri);
    if method == "resources/subscribe" {
        uris.push(uri.to_string());
    }
    Ok(Value::Object(Map::new()))
}
