/* The live match page (templates/games/match.html).

   The server renders the whole table (#table) and sends it again after every change over the
   WebSocket (htmx's ws extension swaps it in place). This script only adds what the page needs
   between two renderings:
   - every action it sends carries "type": "action", a client_seq and the version of the table
     the player saw (the server applies each client_seq at most once, so ids keep increasing
     across reloads of the page: they start from the clock);
   - the hand sorted by suit or in dealt order, remembered in localStorage;
   - the discard step: exactly the right number of cards before the button can be pressed, and
     the cards picked kept when the same table comes again;
   - one action at a time until the next table arrives; the connection state; dismissing errors;
   - the table chat: its forms send chat messages (no client_seq), the log stays scrolled down;
   - the turn clock counting down, "I'm back", "Leave the match" and "Resign" (asked first in the
     page's confirm dialog), and the version the page saw when it reconnects. */
(function () {
  "use strict";

  /* Numbers in the reader's digits (window.hokmDigits, static/js/app.js). */
  function digitText(value) {
    return window.hokmDigits ? window.hokmDigits(value) : String(value);
  }

  var ORDER_KEY = "hokm.handOrder";
  var SEQ_KEY = "hokm.lastClientSeq";
  var PENDING_MS = 4000;
  var root = document.documentElement;

  function storageGet(key) {
    try {
      return window.localStorage.getItem(key);
    } catch (error) {
      return null; // storage refused (private mode): the defaults do
    }
  }

  function storageSet(key, value) {
    try {
      window.localStorage.setItem(key, value);
    } catch (error) {
      /* storage refused: the choice lasts for this page only */
    }
  }

  /* Hand order: an attribute on <html>, outside the swapped fragment, so it survives updates.
     The cards are also put in that order in the page itself, not only on screen (CSS `order`):
     Tab and screen readers then go through the hand the way it is shown. */
  function applyHandOrder(order) {
    root.dataset.handOrder = order === "dealt" ? "dealt" : "suit";
    var key = root.dataset.handOrder === "dealt" ? "--dealt" : "--sorted";
    document.querySelectorAll("#table .hand").forEach(function (hand) {
      var slots = Array.prototype.filter.call(hand.children, function (child) {
        return child.classList.contains("hand__slot");
      });
      var place = function (slot) {
        return parseInt(slot.style.getPropertyValue(key), 10) || 0;
      };
      slots.sort(function (a, b) {
        return place(a) - place(b);
      });
      slots.forEach(function (slot) {
        hand.appendChild(slot); // moving keeps the forms' listeners
      });
    });
  }

  /* Keyboard play: a new table replaces the card that had the focus. Put it back on the same
     card if it is still there and can be used, else on the first card that can, so that the
     next card is a Tab or two away and not behind the whole page. */
  var focusBefore = null;

  function rememberFocus() {
    var active = document.activeElement;
    focusBefore = null;
    if (active && active.closest && active.closest("#table")) {
      var card = active.closest("[data-card]");
      var suit = active.closest("[data-suit]");
      focusBefore = {
        card: card ? card.dataset.card : null,
        suit: suit ? suit.dataset.suit : null,
        id: active.id || null,
      };
    }
  }

  function restoreFocus() {
    if (!focusBefore) {
      return;
    }
    var remembered = focusBefore;
    focusBefore = null;
    var active = document.activeElement;
    if (active && active !== document.body && document.contains(active)) {
      return; // the focus survived, or the player moved it meanwhile
    }
    var usable = "#table .hand button[data-card]:not([disabled]), #table .hand .card-check input";
    var target = null;
    if (remembered.card) {
      target = document.querySelector(
        '#table .hand [data-card="' + remembered.card + '"]:not([disabled])'
      );
      if (target && target.tagName === "LABEL") {
        target = target.querySelector("input");
      }
    }
    if (!target && remembered.suit) {
      target = document.querySelector('#table [data-suit="' + remembered.suit + '"]');
    }
    if (!target && remembered.id) {
      target = document.getElementById(remembered.id);
    }
    target =
      target ||
      document.querySelector(usable) ||
      document.querySelector("#table button:not([disabled])");
    if (target) {
      target.focus({ preventScroll: true });
    }
  }

  document.addEventListener("htmx:wsBeforeMessage", rememberFocus);

  /* The discard (hokm2-draw): the server sends the table again when nothing moved too (someone
     connected or left, a spectator came), and the new copy comes with no card picked. Pick again
     the cards he had picked, while the same discard of the same hand is asked of him. */
  var discardBefore = null;

  function rememberDiscard() {
    var table = document.getElementById("table");
    var form = document.querySelector("#table .discard-form");
    discardBefore =
      table && form
        ? { hand: table.dataset.hand, count: form.dataset.count, cards: checkedCards(form) }
        : null;
  }

  function restoreDiscard() {
    var remembered = discardBefore;
    discardBefore = null;
    var table = document.getElementById("table");
    var form = document.querySelector("#table .discard-form");
    if (!remembered || !table || !form || table.dataset.hand !== remembered.hand ||
        form.dataset.count !== remembered.count) {
      return;
    }
    form.querySelectorAll('input[name="cards"]').forEach(function (input) {
      if (remembered.cards.indexOf(input.value) >= 0) {
        input.checked = true;
      }
    });
  }

  document.addEventListener("htmx:wsBeforeMessage", rememberDiscard);

  /* A press on the table holds the server's messages back until it is released: each message
     redraws the whole table, and a press and a release that land on two copies of a card make
     no click at all, so the move would be lost under the player's finger. The messages held go
     through the socket again, in order, once the click has been taken (at most HOLD_MS later:
     a long press or a scroll must not freeze the table). */
  var HOLD_MS = 1500;
  var TOUCH_CLICK_MS = 300; // after a touch is lifted, its click may come a task or two later
  var currentSocket = null; // set by htmx.createWebSocket below
  var hold = null;

  function holdRelease() {
    if (!hold) {
      return;
    }
    var held = hold;
    window.clearTimeout(held.timer);
    hold = null;
    if (held.socket !== currentSocket) {
      return; // reconnected since: the server sends the whole state again
    }
    held.messages.forEach(function (data) {
      held.socket.dispatchEvent(new MessageEvent("message", { data: data }));
    });
  }

  function holdReleaseIn(ms) {
    if (hold) {
      window.clearTimeout(hold.timer);
      hold.timer = window.setTimeout(holdRelease, ms);
    }
  }

  document.addEventListener(
    "pointerdown",
    function (event) {
      if (!event.isPrimary || !event.target.closest || !event.target.closest("#table")) {
        return;
      }
      holdRelease(); // what an earlier press held goes out first
      hold = { messages: [], socket: currentSocket, timer: window.setTimeout(holdRelease, HOLD_MS) };
    },
    true
  );
  ["pointerup", "pointercancel"].forEach(function (type) {
    document.addEventListener(
      type,
      function () {
        holdReleaseIn(TOUCH_CLICK_MS);
      },
      true
    );
  });
  // The click has been handled (its move sent) by the time a zero timer set now runs.
  document.addEventListener(
    "click",
    function () {
      holdReleaseIn(0);
    },
    true
  );
  document.addEventListener("htmx:wsBeforeMessage", function (event) {
    if (hold && hold.socket === currentSocket && !event.defaultPrevented) {
      event.preventDefault();
      hold.messages.push(event.detail.message);
    }
  });

  /* client_seq: positive, increasing, never reused for this browser (reloads included). */
  var lastSeq = parseInt(storageGet(SEQ_KEY) || "0", 10) || 0;

  function nextClientSeq() {
    lastSeq = Math.max(Date.now(), lastSeq + 1);
    storageSet(SEQ_KEY, String(lastSeq));
    return lastSeq;
  }

  function checkedCards(form) {
    return Array.prototype.map.call(
      form.querySelectorAll('input[name="cards"]:checked'),
      function (input) {
        return input.value;
      }
    );
  }

  function updateDiscard(form) {
    var need = parseInt(form.dataset.count, 10);
    var chosen = checkedCards(form).length;
    var submit = form.querySelector("[data-discard-submit]");
    if (submit) {
      submit.disabled = chosen !== need;
    }
    form.querySelectorAll('input[name="cards"]').forEach(function (input) {
      var label = input.closest(".card-check");
      input.disabled = !input.checked && chosen >= need;
      if (label) {
        label.classList.toggle("is-checked", input.checked);
        label.classList.toggle("is-blocked", input.disabled);
      }
    });
    var status = form.querySelector("[data-discard-status]");
    if (status) {
      status.dataset.chosen = String(chosen);
      status.classList.toggle("is-complete", chosen === need);
      // "2 of 3 chosen" once he has picked some; the prompt as the server wrote it before.
      if (status._hokmPrompt === undefined) {
        status._hokmPrompt = status.textContent;
      }
      status.textContent =
        chosen && status.dataset.progress
          ? digitText(status.dataset.progress.replace("{chosen}", String(chosen)))
          : status._hokmPrompt;
    }
  }

  function setPending(table, pending) {
    if (!table) {
      return;
    }
    table.classList.toggle("is-sending", pending);
    window.clearTimeout(table._hokmPending);
    if (pending) {
      // No answer (socket down): let the player try again rather than freeze the table.
      table._hokmPending = window.setTimeout(function () {
        table.classList.remove("is-sending");
      }, PENDING_MS);
    }
  }

  document.addEventListener("htmx:wsConfigSend", function (event) {
    var form = event.target;
    if (form.closest("[data-chat-form]")) {
      sendChat(form, event);
      return;
    }
    if (form.dataset.seatForm) {
      sendSeat(form, event);
      return;
    }
    if (form.dataset.shuffleCommit) {
      sendClientSeed(form, event);
      return;
    }
    var table = form.closest("#table");
    if (!table || table.classList.contains("is-sending")) {
      event.preventDefault();
      return;
    }
    var parameters = event.detail.parameters;
    if (parameters.kind === "discard") {
      var cards = checkedCards(form);
      if (cards.length !== parseInt(form.dataset.count, 10)) {
        event.preventDefault();
        return;
      }
      parameters.cards = cards; // a list, even for one card
    }
    lastFlash = null; // a new move: an old error no longer applies
    parameters.type = "action";
    parameters.client_seq = nextClientSeq();
    parameters.version = parseInt(table.dataset.version, 10);
    // The page needs no request headers over the socket; keep messages small.
    event.detail.headers = null;
    sentAt = table.dataset.version;
    setPending(table, true);
  });

  /* A ws-send form never loads a page: a click before htmx has wired the form to the socket
     would otherwise submit it as a plain GET and leave the table. htmx's own handler still sends
     it once wired (it does not look at defaultPrevented). */
  document.addEventListener(
    "submit",
    function (event) {
      if (event.target.hasAttribute && event.target.hasAttribute("ws-send")) {
        event.preventDefault();
      }
    },
    true
  );

  document.addEventListener("change", function (event) {
    var form = event.target.closest && event.target.closest(".discard-form");
    if (form) {
      updateDiscard(form);
    }
  });

  document.addEventListener("click", function (event) {
    var toggle = event.target.closest("[data-hand-order-toggle]");
    if (toggle) {
      var order = root.dataset.handOrder === "dealt" ? "suit" : "dealt";
      storageSet(ORDER_KEY, order);
      applyHandOrder(order);
      return;
    }
    var close = event.target.closest("[data-flash-close]");
    if (close) {
      lastFlash = null;
      var flash = close.closest("#flash");
      flash.classList.remove("is-shown");
      flash.replaceChildren();
    }
  });

  /* "I'm back", "Leave the match" (R8.1) and "Resign" (R8): {"type": "back"}, {"type": "leave"}
     or {"type": "resign"}, no client_seq (taking the seat back twice, or leaving twice, changes
     nothing; resigning twice is refused). Leaving and resigning ask first, in the page's dialog. */
  /* Fair deals (R8.4, docs/fairness.md): the next shuffle is sealed while the last hand's result
     shows; this page adds its seat's seed to it, once per commitment: the player's own, typed in
     the settings, else this page's random one. */
  var seededCommits = {};

  function clientSeed() {
    return window.hokmClientSeed(); // static/js/app.js: the player's own, else the page's random one
  }

  function sendClientSeed(form, event) {
    var parameters = event.detail.parameters;
    Object.keys(parameters).forEach(function (key) {
      delete parameters[key];
    });
    parameters.type = "client_seed";
    parameters.commit = form.dataset.shuffleCommit;
    parameters.seed = clientSeed();
    event.detail.headers = null;
  }

  function answerCommitment() {
    var form = document.querySelector("#table form[data-shuffle-commit]");
    if (!form || seededCommits[form.dataset.shuffleCommit] || !window.htmx) {
      return;
    }
    seededCommits[form.dataset.shuffleCommit] = true;
    window.htmx.trigger(form, "submit");
  }

  document.addEventListener("htmx:wsAfterMessage", function () {
    // After htmx has wired the new table's forms to the socket.
    window.setTimeout(answerCommitment, 0);
  });

  function sendSeat(form, event) {
    if (form.dataset.confirm && !form._hokmConfirmed) {
      event.preventDefault();
      confirmAsk(form.dataset.confirm, form.dataset.seatForm);
      return;
    }
    form._hokmConfirmed = false;
    var parameters = event.detail.parameters;
    Object.keys(parameters).forEach(function (key) {
      delete parameters[key];
    });
    parameters.type = form.dataset.seatForm;
    event.detail.headers = null;
  }

  /* The confirm dialog (templates/games/_confirm_dialog.html) lives outside #table: the table,
     and the form that asked, may be replaced while it is open. A yes submits the form of that
     kind in the table as it is then, if it is still there (the match may have ended meanwhile). */
  function confirmAsk(question, kind) {
    var dialog = document.getElementById("confirm-dialog");
    var source = dialog && dialog.querySelector('[data-question="' + question + '"]');
    if (!source || typeof dialog.showModal !== "function" || dialog.open) {
      return;
    }
    dialog.querySelector("[data-confirm-title]").textContent = source.dataset.title;
    dialog.querySelector("[data-confirm-text]").textContent = source.textContent;
    dialog.querySelector("[data-confirm-yes]").textContent = source.dataset.yes;
    dialog.dataset.kind = kind;
    dialog.returnValue = "";
    dialog.showModal();
  }

  document.addEventListener(
    "close",
    function (event) {
      var dialog = event.target;
      if (dialog.id !== "confirm-dialog" || dialog.returnValue !== "confirm") {
        return;
      }
      var form = document.querySelector('#table [data-seat-form="' + dialog.dataset.kind + '"]');
      if (!form) {
        return;
      }
      form._hokmConfirmed = true;
      if (typeof form.requestSubmit === "function") {
        form.requestSubmit();
      } else {
        form.dispatchEvent(new Event("submit", { bubbles: true, cancelable: true }));
      }
    },
    true // "close" does not bubble
  );

  /* A tap on the backdrop, outside the dialog's box, cancels as Esc does. */
  document.addEventListener("click", function (event) {
    var dialog = event.target;
    if (dialog.id === "confirm-dialog" && dialog.open) {
      var box = dialog.getBoundingClientRect();
      var inside =
        event.clientX >= box.left &&
        event.clientX <= box.right &&
        event.clientY >= box.top &&
        event.clientY <= box.bottom;
      if (!inside) {
        dialog.close("");
      }
    }
  });

  /* The turn clock (R8.1). The server renders the time left when it sent the table; counting
     from the moment the table arrived keeps the browser's own clock out of it. */
  var clockTimer = null;

  function startClocks() {
    var clocks = document.querySelectorAll("[data-clock]");
    var arrived = performance.now();
    clocks.forEach(function (clock) {
      clock._hokmEnd = arrived + (parseInt(clock.dataset.remainingMs, 10) || 0);
    });
    window.clearInterval(clockTimer);
    clockTimer = null;
    if (clocks.length) {
      tickClocks();
      clockTimer = window.setInterval(tickClocks, 200);
    }
  }

  function tickClocks() {
    var now = performance.now();
    document.querySelectorAll("[data-clock]").forEach(function (clock) {
      var total = (parseInt(clock.dataset.seconds, 10) || 1) * 1000;
      var left = Math.max(0, (clock._hokmEnd || now) - now);
      clock.style.setProperty("--left", String(Math.min(1, left / total)));
      clock.classList.toggle("is-low", left <= 5000);
      var text = clock.querySelector("[data-clock-seconds]");
      if (text) {
        text.textContent = digitText(Math.ceil(left / 1000));
      }
    });
  }

  /* Reconnecting (htmx's ws extension retries with exponential backoff and full jitter), the page
     names the last version it saw, so the server can tell what it missed. */
  if (window.htmx) {
    window.htmx.createWebSocket = function (url) {
      var table = document.getElementById("table");
      var version = table ? parseInt(table.dataset.version, 10) : NaN;
      var address = isNaN(version) ? url : url + (url.indexOf("?") < 0 ? "?" : "&") + "since=" + version;
      var socket = new WebSocket(address, []);
      socket.binaryType = window.htmx.config.wsBinaryType;
      currentSocket = socket;
      return socket;
    };
  }

  /* The table chat (outside #table): its forms send {"type": "chat", "text"} or {"type": "chat",
     "phrase"} and nothing of an action. The log keeps to its bottom as messages arrive; on a
     phone the panel starts closed and counts what arrived while closed. */
  function sendChat(form, event) {
    var parameters = event.detail.parameters;
    var chat = { type: "chat" };
    if (parameters.phrase) {
      chat.phrase = parameters.phrase;
    } else {
      chat.text = (parameters.text || "").trim();
      if (!chat.text) {
        event.preventDefault();
        return;
      }
    }
    Object.keys(parameters).forEach(function (key) {
      delete parameters[key];
    });
    Object.assign(parameters, chat);
    event.detail.headers = null;
    var input = form.querySelector('input[name="text"]');
    if (input) {
      input.value = "";
    }
    var error = document.getElementById("chat-error");
    if (error) {
      error.classList.remove("is-shown");
      error.textContent = "";
    }
  }

  var chatSeen = null;

  function updateChat() {
    var log = document.getElementById("chat-log");
    if (!log) {
      return;
    }
    // A message in the history and again as a new message (it came in while connecting): once.
    var ids = {};
    Array.prototype.slice.call(log.children).forEach(function (line) {
      if (line.id && ids[line.id]) {
        line.remove();
      } else {
        ids[line.id] = true;
      }
    });
    var count = log.children.length;
    var panel = document.querySelector("[data-chat-panel]");
    var unread = document.querySelector("[data-chat-unread]");
    if (panel && unread) {
      if (panel.open || chatSeen === null) {
        chatSeen = count;
      }
      var fresh = Math.max(0, count - chatSeen);
      unread.hidden = fresh === 0;
      unread.textContent = digitText(fresh > 9 ? "9+" : fresh);
    }
    log.scrollTop = log.scrollHeight;
  }

  document.addEventListener("toggle", function (event) {
    if (event.target.matches && event.target.matches("[data-chat-panel]")) {
      chatSeen = null;
      updateChat();
    }
  }, true);

  function connection(state) {
    document.querySelectorAll("[data-connection]").forEach(function (element) {
      element.dataset.state = state;
    });
  }

  var everOpen = false;

  document.addEventListener("htmx:wsConnecting", function () {
    connection(everOpen ? "closed" : "connecting");
  });
  document.addEventListener("htmx:wsOpen", function () {
    everOpen = true;
    connection("open");
  });
  document.addEventListener("htmx:wsClose", function () {
    connection("closed");
    setPending(document.getElementById("table"), false);
  });

  /* An error stays in sight a moment even when the server sends the table right after it (a
     refused move is followed by a fresh table, whose #flash is empty), until the player acts
     again or dismisses it. */
  var FLASH_KEEP_MS = 6000;
  var lastFlash = null;

  function keepFlash() {
    var flash = document.getElementById("flash");
    if (!flash) {
      return;
    }
    if (flash.classList.contains("is-shown")) {
      if (!lastFlash || lastFlash.html !== flash.innerHTML) {
        lastFlash = { html: flash.innerHTML, at: Date.now() };
      }
    } else if (lastFlash && Date.now() - lastFlash.at < FLASH_KEEP_MS) {
      flash.innerHTML = lastFlash.html;
      flash.classList.add("is-shown");
    }
  }

  /* A new version of the table or an error arrived: the player may act again. The same version
     sent again (someone connected or left) does not answer his move: he still waits. */
  var sentAt = null;

  document.addEventListener("htmx:wsAfterMessage", function () {
    var table = document.getElementById("table");
    keepFlash();
    var flash = document.getElementById("flash");
    var answered =
      !table ||
      table.dataset.version !== sentAt ||
      (flash && flash.classList.contains("is-shown"));
    if (answered) {
      sentAt = null;
      setPending(table, false);
    } else {
      setPending(table, true); // the new fragment came without the class
    }
    applyHandOrder(root.dataset.handOrder);
    restoreDiscard();
    document.querySelectorAll(".discard-form").forEach(updateDiscard);
    updateChat();
    startClocks();
    restoreFocus();
  });

  applyHandOrder(storageGet(ORDER_KEY));
  var chatPanel = document.querySelector("[data-chat-panel]");
  if (chatPanel && window.matchMedia("(max-width: 40rem)").matches) {
    chatPanel.open = false; // a phone: the table first, the chat one tap away
  }
  updateChat();
  connection("connecting");
  document.querySelectorAll(".discard-form").forEach(updateDiscard);
  startClocks();
})();
