/* The "Share" button of a match that anyone may see (templates/games/_share_button.html).

   It shares the page's address as it stands when pressed, hash included: on the replay that is
   the position shown, which static/js/replay.js keeps in the URL. On a touch screen with a share
   sheet (navigator.share) it opens that sheet; elsewhere it copies the link to the clipboard
   (navigator.clipboard) and says so in a live region; when neither works (no permission, an
   insecure page, an old browser) it shows the link in a read-only field, selected, to copy by
   hand. The button stays hidden without this script: the address bar is the link then.
*/
(function () {
  "use strict";

  const SHOWN_MS = 4000;

  function phone() {
    return Boolean(navigator.share) && window.matchMedia("(pointer: coarse)").matches;
  }

  function wire(box) {
    const button = box.querySelector("[data-share-button]");
    const status = box.querySelector("[data-share-status]");
    const fallback = box.querySelector("[data-share-fallback]");
    const field = box.querySelector("[data-share-field]");
    if (!button || !status || !fallback || !field) {
      return;
    }
    let timer = null;

    function say(words) {
      window.clearTimeout(timer);
      // Emptied first, so that the same words said again are read again.
      status.textContent = "";
      window.setTimeout(function () {
        status.textContent = words;
      }, 30);
      timer = window.setTimeout(function () {
        status.textContent = "";
      }, SHOWN_MS);
    }

    function byHand(link) {
      field.value = link;
      fallback.hidden = false;
      field.focus();
      field.select();
      say(button.dataset.shareByHand);
    }

    function copy(link) {
      if (!navigator.clipboard || !window.isSecureContext) {
        byHand(link);
        return;
      }
      navigator.clipboard.writeText(link).then(
        function () {
          fallback.hidden = true;
          say(button.dataset.shareCopied);
        },
        function () {
          byHand(link);
        }
      );
    }

    button.addEventListener("click", function () {
      const link = window.location.href;
      if (!phone()) {
        copy(link);
        return;
      }
      navigator.share({ title: button.dataset.shareTitle, url: link }).then(
        function () {
          say(button.dataset.shareShared);
        },
        function (error) {
          // Closing the share sheet is no failure; anything else falls back to copying.
          if (!error || error.name !== "AbortError") {
            copy(link);
          }
        }
      );
    });
    field.addEventListener("focus", function () {
      field.select();
    });
    button.hidden = false;
  }

  document.querySelectorAll("[data-share]").forEach(wire);
})();
