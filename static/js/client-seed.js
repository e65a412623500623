/* The settings page's "Your seed for fair deals" (R8.4, docs/fairness.md): a seed the player
   types for the shuffles his match pages take part in, kept in this browser's storage under
   "hokm-client-seed", which static/js/match.js reads. What RECORD.md allows: 0 to 64 characters
   from space to "~", without "|"; anything else is not kept. */
(function () {
  "use strict";

  var KEY = "hokm-client-seed";
  var VALID = /^[\x20-\x7b\x7d\x7e]{0,64}$/;
  var form = document.querySelector("[data-client-seed-setting]");
  if (!form) {
    return;
  }
  var input = form.querySelector("input");
  var saved = form.querySelector("[data-client-seed-saved]");
  try {
    input.value = window.localStorage.getItem(KEY) || "";
  } catch (error) {
    input.disabled = true; // no storage (private mode): the page's random seed is used
    return;
  }
  var timer = null;
  input.addEventListener("input", function () {
    var ok = VALID.test(input.value);
    input.setAttribute("aria-invalid", ok ? "false" : "true");
    saved.hidden = true;
    if (!ok) {
      return;
    }
    window.clearTimeout(timer);
    timer = window.setTimeout(function () {
      if (input.value) {
        window.localStorage.setItem(KEY, input.value);
      } else {
        window.localStorage.removeItem(KEY);
      }
      saved.hidden = false;
    }, 300);
  });
  form.addEventListener("submit", function (event) {
    event.preventDefault();
  });
})();
