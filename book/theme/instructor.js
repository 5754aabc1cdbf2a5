// The instructor layer: speaker notes (`<div class="speaker-notes">`, one per
// page, from book/src/instructor/) stay hidden from readers until the
// "Instructor notes" button in the menu bar is pressed. The choice is kept in
// this browser's localStorage, so it holds from page to page. Plain script,
// no dependencies: the book must work offline. A search result that only the
// notes contain shows them on that page (see the end).
(function () {
    "use strict";
    var KEY = "wire-by-wire.instructor-notes";
    var SHOWN = "instructor-notes-shown";
    var root = document.documentElement;
    var bar = document.querySelector("#mdbook-menu-bar .right-buttons");
    if (!bar) {
        return;
    }

    function remembered() {
        try {
            return window.localStorage.getItem(KEY) === "shown";
        } catch (e) {
            return false; // storage blocked (a file:// page in some browsers)
        }
    }

    function remember(shown) {
        try {
            window.localStorage.setItem(KEY, shown ? "shown" : "hidden");
        } catch (e) {
            // Not remembered; the button still works on this page.
        }
    }

    var button = document.createElement("button");
    button.type = "button";
    button.id = "instructor-notes-toggle";
    button.className = "icon-button";
    button.textContent = "Instructor notes";
    button.title = "Show or hide the instructor notes (minutes, demos, where learners stall)";

    function show(shown) {
        root.classList.toggle(SHOWN, shown);
        button.setAttribute("aria-pressed", shown ? "true" : "false");
    }

    button.addEventListener("click", function () {
        var shown = !root.classList.contains(SHOWN);
        show(shown);
        remember(shown);
    });

    bar.insertBefore(button, bar.firstChild);
    show(remembered());

    // The search index holds the notes too. A reader whom search sends here
    // (`?highlight=word`) for a word that only the hidden notes contain would
    // land on nothing: show the notes on this page, without remembering it,
    // and bring the first match into view once mdBook has marked it.
    var words;
    try {
        words = (new URLSearchParams(window.location.search).get("highlight") || "")
            .toLowerCase()
            .split(/\s+/)
            .filter(function (word) { return word.length > 0; });
    } catch (e) {
        words = [];
    }
    var notes = Array.prototype.slice.call(document.querySelectorAll(".speaker-notes"));
    var main = document.querySelector("main");
    if (words.length === 0 || root.classList.contains(SHOWN) || !main) {
        return;
    }
    var hidden = main.cloneNode(true);
    Array.prototype.forEach.call(hidden.querySelectorAll(".speaker-notes"), function (n) {
        n.remove();
    });
    var visible = hidden.textContent.toLowerCase();
    var inNotes = notes.filter(function (n) {
        var text = n.textContent.toLowerCase();
        return words.some(function (word) {
            return text.indexOf(word) >= 0 && visible.indexOf(word) < 0;
        });
    });
    if (inNotes.length === 0) {
        return;
    }
    show(true);
    window.setTimeout(function () {
        var mark = inNotes[0].querySelector("mark") || inNotes[0];
        mark.scrollIntoView({ block: "center" });
    }, 300);
})();
