/* Lobby and table pages: the few behaviours htmx attributes do not cover. No inline scripts. */
(function () {
  "use strict";

  /* Numbers in the reader's digits (window.hokmDigits, static/js/app.js). */
  function digitText(value) {
    return window.hokmDigits ? window.hokmDigits(value) : String(value);
  }

  /* A fragment with data-redirect (the table's match has started) takes the page there. Fragments
     arrive over the table's WebSocket, or as the answer to an htmx join, leave or start. */
  function followRedirect() {
    var target = document.querySelector("[data-redirect]");
    if (target) {
      window.location.assign(target.getAttribute("data-redirect"));
    }
  }
  document.addEventListener("htmx:wsAfterMessage", followRedirect);
  document.addEventListener("htmx:afterSwap", followRedirect);

  /* "Copy" buttons: data-copy-target names the input whose value is copied. The clipboard API
     needs a secure context; elsewhere the text is selected and copied the old way. */
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy-target]");
    if (!button) {
      return;
    }
    var input = document.getElementById(button.getAttribute("data-copy-target"));
    if (!input) {
      return;
    }
    function done() {
      var label = button.getAttribute("data-copied-label");
      if (label) {
        var original = button.textContent;
        button.textContent = label;
        window.setTimeout(function () { button.textContent = original; }, 2000);
      }
    }
    function fallback() {
      input.focus();
      input.select();
      try {
        if (document.execCommand("copy")) {
          done();
        }
      } catch (error) {
        /* The text stays selected for the person to copy. */
      }
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(input.value).then(done, fallback);
    } else {
      fallback();
    }
  });

  /* Settings that only some variants have (data-only-variants="hokm4") are hidden, and off, for
     the others. The server refuses them anyway; this keeps the form honest. */
  function syncVariantFields(form) {
    var select = form.querySelector("select[name=variant]");
    if (!select) {
      return;
    }
    form.querySelectorAll("[data-only-variants]").forEach(function (field) {
      var allowed = field.getAttribute("data-only-variants").split(/\s+/);
      var shown = allowed.indexOf(select.value) >= 0;
      field.hidden = !shown;
      field.querySelectorAll("input, select").forEach(function (input) {
        input.disabled = !shown;
      });
    });
  }
  /* A Court Piece match is to 1 court, a Hokm match to 7 points (R9.10.1, R7.1): the target
     follows the game chosen until the person types one of his own. */
  var DEFAULT_TARGETS = { "court-piece": "1" };
  function syncTarget(form) {
    var select = form.querySelector("select[name=variant]");
    var target = form.querySelector("input[name=target]");
    if (!select || !target || target.hasAttribute("data-typed")) {
      return;
    }
    target.value = DEFAULT_TARGETS[select.value] || target.getAttribute("data-hokm-default") || "7";
  }
  document.addEventListener("input", function (event) {
    if (event.target.matches("input[name=target]")) {
      event.target.setAttribute("data-typed", "");
    }
  });
  document.addEventListener("change", function (event) {
    if (event.target.matches("select[name=variant]") && event.target.form) {
      syncVariantFields(event.target.form);
      syncTarget(event.target.form);
    }
  });
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("form").forEach(syncVariantFields);
  });

  /* The seek panel while it waits ("Play rated now"): the time waited and the range of ratings
     accepted, which widens with it (games/lobby/seeks.py). The server sent both as they were; the
     page counts on from when the panel arrived, so its clock and the server's need not agree. */
  function twoDigits(number) {
    return (number < 10 ? "0" : "") + number;
  }
  function tickSeek() {
    var wait = document.querySelector("[data-seek-waited]");
    if (!wait) {
      return;
    }
    if (!wait.hasAttribute("data-arrived")) {
      wait.setAttribute("data-arrived", String(Date.now()));
    }
    var waited = Number(wait.getAttribute("data-seek-waited")) +
      (Date.now() - Number(wait.getAttribute("data-arrived"))) / 1000;
    var seconds = Math.floor(waited);
    var elapsed = wait.querySelector("[data-seek-elapsed]");
    if (elapsed) {
      elapsed.textContent = digitText(Math.floor(seconds / 60) + ":" + twoDigits(seconds % 60));
    }
    var range = Math.min(
      Number(wait.getAttribute("data-window-max")),
      Number(wait.getAttribute("data-window-base")) +
        Math.floor(Number(wait.getAttribute("data-window-per-second")) * waited)
    );
    var rating = Number(wait.getAttribute("data-seek-rating"));
    var low = wait.querySelector("[data-seek-low]");
    var high = wait.querySelector("[data-seek-high]");
    if (low && high) {
      low.textContent = digitText(rating - range);
      high.textContent = digitText(rating + range);
    }
  }
  document.addEventListener("htmx:wsAfterMessage", tickSeek);
  window.setInterval(tickSeek, 1000);
})();
