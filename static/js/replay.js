/* The replay page (templates/games/replay.html, games/history/replay.py).

   The server embeds the whole match once (#replay-data) and one face per card it may show
   (#replay-faces); this script draws a position from them: a position is a hand and the number
   of cards played in it (0 is the deal). Every seat's cards left at that position are its cards
   when play began less those played (face down, as a count, while the match is being played:
   the data then holds no hand at all, R8.3), the trick on the table, who led and who took it,
   the tricks per side and the score before the hand, and after it on its last card.

   The URL hash names the position, 1-based: #h3 is hand 3 as dealt, #h3t5c2 after the 2nd
   card of trick 5, #h3t5 after trick 5 is complete. It follows every step through
   history.replaceState (so Back leaves the page rather than undoing steps); a link or an
   edited hash opens its position, and a hash that names none opens the first deal.

   Court Piece (R9, data.court_piece) plays deals the same way, with the same hashes, and adds:
   the dealer beside the caller (shown as the "Hakem" of its data); under hidden trump the
   indicator, face down until the position of its reveal (hidden.reveal.at cards played, R9.14.2),
   then face up and in the caller's hand; under Double Sir the pile and each collection (R9.12).
   Of a deal still being played, a trick gone face down to the pile holds no card (null): its
   cards are drawn as backs (R9.15.1).

   Keys: Home and End go to the start and end of the hand, up and down to the previous and next
   hand. The left and right arrows step one card in the direction the buttons point: forward is
   to the right in English and to the left in Persian, where the page (and so the row of buttons)
   is mirrored, the way a right-to-left slider moves. Keys typed into a form field are left alone.
*/
(function () {
  "use strict";

  /* Numbers in the reader's digits (window.hokmDigits, static/js/app.js). */
  function digitText(value) {
    return window.hokmDigits ? window.hokmDigits(value) : String(value);
  }

  const root = document.querySelector("[data-replay]");
  const source = document.getElementById("replay-data");
  if (!root || !source) {
    return;
  }
  const data = JSON.parse(source.textContent);
  const text = data.text;
  const players = data.players;
  const hands = data.hands;
  const court = Boolean(data.court_piece);

  const faces = {};
  const faceTemplate = document.getElementById("replay-faces");
  faceTemplate.content.querySelectorAll("[data-card]").forEach(function (face) {
    faces[face.dataset.card] = face;
  });

  // Every card of a hand in the order played, with its seat.
  hands.forEach(function (hand) {
    hand.plays = [];
    hand.tricks.forEach(function (trick, index) {
      trick.cards.forEach(function (card, order) {
        hand.plays.push({ card: card, seat: (trick.leader + order) % players, trick: index });
      });
    });
  });

  const seatsBySide = [];
  data.seats.forEach(function (seat, index) {
    (seatsBySide[seat.side] = seatsBySide[seat.side] || []).push(index);
  });

  const el = {
    table: root.querySelector("[data-table]"),
    trick: root.querySelector("[data-trick]"),
    status: root.querySelector("[data-status]"),
    caption: root.querySelector("[data-caption]"),
    handLabel: root.querySelector("[data-hand-label]"),
    positionLabel: root.querySelector("[data-position-label]"),
    trump: root.querySelector("[data-trump]"),
    trumpSymbol: root.querySelector("[data-trump-symbol]"),
    trumpName: root.querySelector("[data-trump-name]"),
    trumpNote: root.querySelector("[data-trump-note]"),
    indicatorBack: root.querySelector("[data-indicator-back]"),
    indicatorFace: root.querySelector("[data-indicator-face]"),
    pile: root.querySelector("[data-pile]"),
    collections: root.querySelector("[data-collections]"),
    viewer: root.querySelector("[data-viewer-select]"),
    discards: root.querySelector("[data-discards]"),
    discardsBox: root.querySelector("[data-discards-box]"),
    seats: Array.from(root.querySelectorAll("[data-seat]")),
    sides: Array.from(root.querySelectorAll("[data-side]")),
    buttons: Array.from(root.querySelectorAll("[data-go]")),
    handLinks: Array.from(root.querySelectorAll("[data-hand-link]")),
  };

  let viewer = data.viewer;
  let position = { hand: 0, card: 0 };

  function format(template, values) {
    return template.replace(/%\((\w+)\)s/g, function (match, key) {
      if (!(key in values)) {
        return match;
      }
      // Numbers in the reader's digits; names as they are written.
      return typeof values[key] === "number" ? digitText(values[key]) : String(values[key]);
    });
  }

  function face(card) {
    if (card === null) {
      // A card gone face down to the Double Sir pile of a deal still in play (R9.15.1).
      const back = document.createElement("span");
      back.className = "back rp-back";
      back.setAttribute("role", "img");
      back.setAttribute("aria-label", text.hidden_card);
      return back;
    }
    const found = faces[card];
    return found ? found.cloneNode(true) : document.createTextNode(card);
  }

  function label(card) {
    if (card === null) {
      return text.hidden_card;
    }
    const found = faces[card];
    return found ? found.getAttribute("aria-label") : card;
  }

  /* Court Piece, hidden trump (R9.14.2): whether the indicator is face up after k cards. The
     reveal comes before the card of the seat that revealed, so it shows with that card, or at
     once when that card is not played yet (a deal in play, or one that stopped there). */
  function revealedAt(hand, k) {
    const reveal = hand.hidden && hand.hidden.reveal;
    if (!reveal) {
      return false;
    }
    return k > reveal.at || (k === reveal.at && k === hand.plays.length);
  }

  function neverRevealedAt(hand, k) {
    return Boolean(
      hand.hidden && !hand.hidden.reveal && hand.result && hand.hidden.card && k === hand.plays.length
    );
  }

  function seatName(index) {
    return data.seats[index].name;
  }

  function place(seat) {
    return data.layout[(seat - viewer + players) % players];
  }

  function lastCard(handIndex) {
    return hands[handIndex].plays.length;
  }

  /* ----- positions and the URL hash ----- */

  function hashOf(at) {
    const number = at.hand + 1;
    if (at.card === 0) {
      return "h" + number;
    }
    const trick = Math.floor((at.card - 1) / players) + 1;
    const card = ((at.card - 1) % players) + 1;
    return card === players ? "h" + number + "t" + trick : "h" + number + "t" + trick + "c" + card;
  }

  function parseHash(hash) {
    const found = /^#?h(\d{1,6})(?:t(\d{1,3})(?:c(\d{1,2}))?)?$/.exec(hash || "");
    if (!found) {
      return null;
    }
    const hand = Number(found[1]) - 1;
    if (hand < 0 || hand >= hands.length) {
      return null;
    }
    if (found[2] === undefined) {
      return { hand: hand, card: 0 };
    }
    const trick = Number(found[2]);
    let card;
    if (found[3] === undefined) {
      card = trick * players;
    } else {
      const order = Number(found[3]);
      if (order < 1 || order > players) {
        return null;
      }
      card = (trick - 1) * players + order;
    }
    if (trick < 1 || card > lastCard(hand)) {
      return null;
    }
    return { hand: hand, card: card };
  }

  function stepped(kind, at) {
    let hand = at.hand;
    let card = at.card;
    const last = lastCard(hand);
    const moreHands = hand + 1 < hands.length;
    switch (kind) {
      case "next-card":
        if (card < last) {
          card += 1;
        } else if (moreHands) {
          hand += 1;
          card = 0;
        }
        break;
      case "prev-card":
        if (card > 0) {
          card -= 1;
        } else if (hand > 0) {
          hand -= 1;
          card = lastCard(hand);
        }
        break;
      case "next-trick":
        if (card < last) {
          card = Math.min(last, (Math.floor(card / players) + 1) * players);
        } else if (moreHands) {
          hand += 1;
          card = 0;
        }
        break;
      case "prev-trick":
        if (card > 0) {
          card = card % players === 0 ? card - players : card - (card % players);
        } else if (hand > 0) {
          hand -= 1;
          card = lastCard(hand);
        }
        break;
      case "start":
        card = 0;
        break;
      case "end":
        card = last;
        break;
      case "prev-hand":
        if (hand > 0) {
          hand -= 1;
        }
        card = 0;
        break;
      case "next-hand":
        if (moreHands) {
          hand += 1;
          card = 0;
        }
        break;
      default:
        break;
    }
    return { hand: hand, card: card };
  }

  function same(a, b) {
    return a.hand === b.hand && a.card === b.card;
  }

  /* ----- drawing a position ----- */

  function cardsLeft(hand, seat, playedCards, k) {
    let cards = hand.cards[seat];
    if (seat === hand.caller && revealedAt(hand, k)) {
      cards = cards.concat([hand.hidden.card]); // into his hand at the reveal (R9.14.3)
    }
    return cards.filter(function (card) {
      return !playedCards.has(card);
    });
  }

  function drawSeats(hand, k, playedCards, seatTricks) {
    const next = k < hand.plays.length ? hand.plays[k].seat : null;
    el.seats.forEach(function (section) {
      const seat = Number(section.dataset.seat);
      section.className = "rp-seat rp-seat--" + place(seat);
      section.classList.toggle("is-on-turn", seat === next);
      section.querySelector("[data-hakem-badge]").hidden = seat !== hand.hakem;
      section.querySelector("[data-dealer-badge]").hidden = seat !== hand.dealer;
      section.querySelector("[data-seat-tricks]").textContent = digitText(seatTricks[seat]);
      const holder = section.querySelector("[data-hand-cards]");
      const box = section.querySelector("[data-hand]");
      const fragment = document.createDocumentFragment();
      let count;
      if (hand.cards) {
        const left = cardsLeft(hand, seat, playedCards, k);
        count = left.length;
        left.forEach(function (card) {
          fragment.appendChild(face(card));
        });
        box.classList.remove("is-face-down");
      } else {
        const played = hand.plays.slice(0, k).filter(function (play) {
          return play.seat === seat;
        }).length;
        count = hand.counts[seat] - played;
        if (seat === hand.caller && revealedAt(hand, k)) {
          count += 1;
        }
        for (let i = 0; i < count; i += 1) {
          const back = document.createElement("span");
          back.className = "back";
          fragment.appendChild(back);
        }
        if (count) {
          const number = document.createElement("span");
          number.className = "rp-hand__count";
          number.setAttribute("aria-hidden", "true");
          number.textContent = digitText(count);
          fragment.appendChild(number);
        }
        box.classList.add("is-face-down");
        box.setAttribute(
          "aria-label",
          format(text.cards_count, { name: seatName(seat), count: count })
        );
      }
      box.style.setProperty("--count", String(Math.max(count, 1)));
      box.classList.toggle("is-empty", count === 0);
      holder.replaceChildren(fragment);
    });
  }

  function drawTrick(hand, k) {
    const fragment = document.createDocumentFragment();
    el.trick.classList.remove("trick--done");
    el.status.replaceChildren();
    if (k === 0) {
      const deal = document.createElement("div");
      deal.className = "waiting rp-deal";
      const crown = document.createElement("span");
      crown.className = "waiting__crown";
      crown.setAttribute("aria-hidden", "true");
      crown.textContent = "♛";
      const line = document.createElement("p");
      line.textContent = format(text.hakem_is, { name: seatName(hand.hakem) });
      deal.append(crown, line);
      if (court) {
        const dealer = document.createElement("p");
        dealer.className = "waiting__hint";
        dealer.textContent = format(text.dealer_is, { name: seatName(hand.dealer) });
        deal.appendChild(dealer);
      }
      if (!hand.started) {
        const note = document.createElement("p");
        note.className = "waiting__hint";
        note.textContent = data.revealed ? text.not_started : text.dealing;
        deal.appendChild(note);
      }
      fragment.appendChild(deal);
      el.trick.replaceChildren(fragment);
      el.trick.classList.add("is-deal");
      return;
    }
    el.trick.classList.remove("is-deal");
    const done = k % players === 0;
    const index = done ? k / players - 1 : Math.floor(k / players);
    const trick = hand.tricks[index];
    const shown = done ? players : k % players;
    for (let order = 0; order < shown; order += 1) {
      const seat = (trick.leader + order) % players;
      const slot = document.createElement("div");
      slot.className = "trick__card trick__card--" + place(seat);
      if (order === 0) {
        slot.classList.add("is-led");
      }
      if (done && seat === trick.winner) {
        slot.classList.add("is-winner");
      }
      slot.style.setProperty("--order", String(order));
      const who = document.createElement("span");
      who.className = "trick__who side-" + data.seats[seat].side;
      who.textContent = seatName(seat);
      slot.append(face(trick.cards[order]), who);
      fragment.appendChild(slot);
    }
    el.trick.replaceChildren(fragment);
    el.trick.classList.toggle("trick--done", done);
    const ended = k === hand.plays.length && hand.result;
    if (ended) {
      const result = document.createElement("span");
      result.className = "status__took rp-result side-" + hand.result.winner;
      if (hand.result.kot) {
        result.classList.add("is-kot");
      }
      result.textContent = (hand.result.title ? hand.result.title + " " : "") + hand.result.text;
      el.status.appendChild(result);
      if (hand.result.streak_text) {
        const streak = document.createElement("span");
        streak.className = "status__turn rp-streak";
        streak.textContent = hand.result.streak_text;
        el.status.appendChild(streak);
      }
      if (matchEndsHere(hand)) {
        const champion = document.createElement("span");
        champion.className = "status__took rp-champion";
        champion.textContent = "★ " + data.match_result;
        el.status.appendChild(champion);
      }
    } else if (done) {
      const took = document.createElement("span");
      took.className = "status__took side-" + data.seats[trick.winner].side;
      took.textContent = format(text.takes_short, { name: seatName(trick.winner) });
      el.status.appendChild(took);
    } else {
      const led = document.createElement("span");
      led.className = "status__turn rp-led side-" + data.seats[trick.leader].side;
      led.textContent = format(text.led_short, { name: seatName(trick.leader) });
      el.status.appendChild(led);
    }
  }

  /* Tricks per side: won ones, or under Double Sir collected ones (R9.12.5). */
  function sideTricks(hand, k, seatTricks, side) {
    const complete = Math.floor(k / players);
    if (hand.double_sir) {
      return hand.tricks.slice(0, complete).reduce(function (sum, trick) {
        const by = trick.collected_by;
        return sum + (by !== null && by !== undefined && data.seats[by].side === side ? trick.collected : 0);
      }, 0);
    }
    return (seatsBySide[side] || []).reduce(function (sum, seat) {
      return sum + seatTricks[seat];
    }, 0);
  }

  function drawScore(hand, k, seatTricks) {
    const ended = k === hand.plays.length && hand.result;
    const scores = ended ? hand.score_after : hand.score_before;
    el.sides.forEach(function (item) {
      const side = Number(item.dataset.side);
      const points = scores[side];
      item.querySelector("[data-points]").textContent = digitText(points);
      const gain = item.querySelector("[data-gain]");
      const won = ended && hand.result.winner === side;
      gain.hidden = !won || !hand.result.points; // a Court Piece deal may score no court (R9.7.3)
      gain.textContent = won ? "+" + hand.result.points : "";
      item.classList.toggle("is-winner", Boolean(won));
      item.querySelector("[data-tricks]").textContent = digitText(sideTricks(hand, k, seatTricks, side));
      item.querySelectorAll(".petal").forEach(function (petal, index) {
        petal.classList.toggle("is-filled", index < points);
      });
    });
  }

  function drawTrump(hand, k) {
    const hidden = hand.hidden;
    const up = hidden ? revealedAt(hand, k) || neverRevealedAt(hand, k) : true;
    const trump = up ? hand.trump : null;
    el.trump.classList.toggle("trump--none", !trump);
    el.trump.classList.toggle("trump--hidden", Boolean(hidden && !up));
    el.trump.classList.toggle("is-red", trump === "H" || trump === "D");
    el.trumpSymbol.textContent = trump ? { S: "♠", H: "♥", D: "♦", C: "♣" }[trump] : "?";
    el.trumpName.textContent = trump ? text.suit_titles[trump] : text.no_trump;
    if (!el.indicatorBack) {
      return;
    }
    // Hidden trump (R9.14): the indicator face down until its reveal, then face up.
    const laid = Boolean(hidden && hand.started);
    el.indicatorBack.hidden = !laid || up;
    el.trumpSymbol.hidden = laid; // the indicator, face down or up, stands for it
    el.indicatorFace.hidden = !laid || !up || !hidden.card;
    el.indicatorFace.replaceChildren(laid && up && hidden.card ? face(hidden.card) : "");
    el.trumpNote.hidden = !laid;
    if (!laid) {
      return;
    }
    if (!up) {
      el.trumpName.textContent = text.indicator_down;
      el.trumpNote.textContent = "";
      el.trumpNote.hidden = true;
    } else if (hidden.reveal) {
      const reveal = hidden.reveal;
      el.trumpNote.textContent = format(reveal.asked ? text.asked_by : text.revealed_by, {
        name: seatName(reveal.seat),
        trick: reveal.trick + 1,
      });
    } else {
      el.trumpNote.textContent = text.indicator_never;
    }
  }

  /* Double Sir (R9.12): how many tricks lie in the pile, and who collected how many when. */
  function drawPile(hand, k) {
    if (!el.pile) {
      return;
    }
    const complete = hand.tricks.slice(0, Math.floor(k / players));
    const last = complete[complete.length - 1];
    const pile = last ? last.pile : 0;
    el.pile.textContent = pile ? format(text.pile, { count: pile }) : text.pile_none;
    const fragment = document.createDocumentFragment();
    complete.forEach(function (trick) {
      if (!trick.collected_text) {
        return;
      }
      const item = document.createElement("li");
      item.className = "side-" + data.seats[trick.collected_by].side;
      item.textContent = trick.collected_text;
      fragment.appendChild(item);
    });
    if (!fragment.childNodes.length) {
      const none = document.createElement("li");
      none.className = "rp-pile__none";
      none.textContent = text.no_collection;
      fragment.appendChild(none);
    }
    el.collections.replaceChildren(fragment);
  }

  function drawDiscards(hand) {
    if (!el.discards) {
      return;
    }
    // A hand still in play keeps its discards hidden (R3.5, R8.3): no box, not the last one's.
    el.discardsBox.hidden = !hand.discards;
    if (!hand.discards) {
      el.discards.replaceChildren();
      return;
    }
    const fragment = document.createDocumentFragment();
    hand.discards.forEach(function (pile, seat) {
      const block = document.createElement("div");
      block.className = "rp-discards__seat side-" + data.seats[seat].side;
      const title = document.createElement("h3");
      title.textContent = seatName(seat);
      block.appendChild(title);
      [
        [text.discarded, pile.discarded],
        [text.thrown, pile.thrown],
      ].forEach(function (row) {
        if (!row[1].length) {
          return;
        }
        const caption = document.createElement("p");
        caption.textContent = row[0];
        const cards = document.createElement("div");
        cards.className = "rp-discards__cards";
        row[1].forEach(function (card) {
          cards.appendChild(face(card));
        });
        block.append(caption, cards);
      });
      fragment.appendChild(block);
    });
    el.discards.replaceChildren(fragment);
  }

  function matchEndsHere(hand) {
    return Boolean(data.match_result) && hand === hands[hands.length - 1] && hand.result;
  }

  function revealWords(hand) {
    const reveal = hand.hidden.reveal;
    return format(reveal.asked ? text.asks : text.reveals, {
      name: seatName(reveal.seat),
      label: label(hand.hidden.card),
      suit: text.suits[hand.trump],
    });
  }

  function describe(hand, k) {
    const number = hand.number;
    if (k === 0) {
      const names = { hand: number, hakem: seatName(hand.hakem), dealer: seatName(hand.dealer) };
      let words;
      if (hand.hidden && hand.started) {
        words = format(text.deal_hidden, names);
      } else if (hand.trump) {
        words = format(text.deal, Object.assign({ trump: text.suits[hand.trump] }, names));
      } else {
        words = format(text.deal_no_trump, names);
      }
      if (revealedAt(hand, k)) {
        words += " " + revealWords(hand);
      }
      return hand.started ? words : words + " " + (data.revealed ? text.not_started : text.dealing);
    }
    const play = hand.plays[k - 1];
    const trick = play.trick + 1;
    const order = ((k - 1) % players) + 1;
    let words = "";
    if (revealedAt(hand, k) && !revealedAt(hand, k - 1)) {
      words = revealWords(hand) + " ";
    }
    const hiddenCard = play.card === null;
    let template = order === 1 ? text.lead : text.play;
    if (hiddenCard) {
      template = order === 1 ? text.lead_down : text.play_down;
    }
    words += format(template, {
      hand: number,
      trick: trick,
      card: order,
      name: seatName(play.seat),
      label: label(play.card),
    });
    if (order === players) {
      const done = hand.tricks[play.trick];
      const winner = seatName(done.winner);
      words += " " + format(text.takes, { name: winner, trick: trick });
      if (done.collects_text) {
        words += " " + done.collects_text;
      }
    }
    if (k === hand.plays.length) {
      if (neverRevealedAt(hand, k)) {
        words += " " + format(text.never_revealed, { label: label(hand.hidden.card) });
      }
      if (hand.result) {
        words += " " + (hand.result.title ? hand.result.title + " " : "") + hand.result.text + ".";
        if (hand.result.streak_text) {
          words += " " + hand.result.streak_text;
        }
        if (matchEndsHere(hand)) {
          words += " " + data.match_result;
        }
      } else if (!data.revealed && hand === hands[hands.length - 1]) {
        words += " " + text.in_play;
      }
    }
    return words;
  }

  function draw() {
    const hand = hands[position.hand];
    const k = position.card;
    const playedCards = new Set(
      hand.plays.slice(0, k).map(function (play) {
        return play.card;
      })
    );
    const seatTricks = data.seats.map(function () {
      return 0;
    });
    for (let t = 0; t < Math.floor(k / players); t += 1) {
      seatTricks[hand.tricks[t].winner] += 1;
    }
    drawSeats(hand, k, playedCards, seatTricks);
    drawTrick(hand, k);
    drawScore(hand, k, seatTricks);
    drawTrump(hand, k);
    drawPile(hand, k);
    drawDiscards(hand);

    el.handLabel.textContent = format(text.hand_of, { hand: hand.number, hands: hands.length });
    if (k === 0) {
      el.positionLabel.textContent = text.at_deal;
    } else if (k % players === 0) {
      el.positionLabel.textContent = format(text.at_trick, { trick: k / players });
    } else {
      el.positionLabel.textContent = format(text.at_card, {
        trick: Math.floor(k / players) + 1,
        card: k % players,
      });
    }
    el.caption.textContent = describe(hand, k);
    root.dataset.position = hashOf(position);
    el.buttons.forEach(function (button) {
      button.disabled = same(stepped(button.dataset.go, position), position);
    });
    el.handLinks.forEach(function (link) {
      if (Number(link.dataset.handLink) === hand.number) {
        link.setAttribute("aria-current", "step");
      } else {
        link.removeAttribute("aria-current");
      }
    });
  }

  function show(at, updateHash) {
    position = at;
    draw();
    if (updateHash) {
      history.replaceState(history.state, "", "#" + hashOf(position));
    }
  }

  function go(kind) {
    const next = stepped(kind, position);
    if (!same(next, position)) {
      show(next, true);
    }
  }

  /* ----- wiring ----- */

  if (!hands.length) {
    el.buttons.forEach(function (button) {
      button.disabled = true;
    });
    el.caption.textContent = text.no_hands;
    root.classList.add("is-ready");
    return;
  }

  el.buttons.forEach(function (button) {
    button.addEventListener("click", function () {
      go(button.dataset.go);
    });
  });

  if (el.viewer) {
    el.viewer.addEventListener("change", function () {
      viewer = Number(el.viewer.value) || 0;
      draw();
    });
  }

  document.addEventListener("keydown", function (event) {
    const modified = event.altKey || event.ctrlKey || event.metaKey || event.shiftKey;
    if (modified || event.defaultPrevented) {
      return;
    }
    const target = event.target;
    if (target && target.closest && target.closest("input, select, textarea, [contenteditable]")) {
      return;
    }
    const rtl = document.documentElement.dir === "rtl";
    const kinds = {
      ArrowLeft: rtl ? "next-card" : "prev-card",
      ArrowRight: rtl ? "prev-card" : "next-card",
      Home: "start",
      End: "end",
      ArrowUp: "prev-hand",
      ArrowDown: "next-hand",
    };
    const kind = kinds[event.key];
    if (kind) {
      event.preventDefault();
      go(kind);
    }
  });

  window.addEventListener("hashchange", function () {
    const at = parseHash(window.location.hash);
    show(at || { hand: 0, card: 0 }, true);
  });

  const opened = parseHash(window.location.hash);
  show(opened || { hand: 0, card: 0 }, Boolean(window.location.hash));
  root.classList.add("is-ready");
})();
