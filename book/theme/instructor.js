// The instructor layer: speaker notes (`<div class="speaker-notes">`, one per
// page, from book/src/instructor/) stay hidden from readers until the
// "Instructor notes" button in the menu bar is pressed. The choice is kept in
// this browser's localStorage, so it holds from page to page. Plain script,
// no dependencies: the book must work offline.
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
})();
