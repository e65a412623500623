"""Recompute the fair deals of a game record (RULES.md R8.4; RECORD.md, "Fair deals").

    python3 verify_deal.py my_game.json

Standard library only: copy this file anywhere. For the flips and every hand, it checks the
revealed server seed against the commitment published before the deal, shuffles the deck again
from the seeds, deals it, and compares with the record. Exit status 0 when every part verifies
(the last hand may still be sealed: a match resigned or written while that hand was played), 1
otherwise (a mismatch, or a part without a revealed seed).
"""

import hashlib
import hmac
import itertools
import json
import sys

DECK = [rank + suit for suit in "SHDC" for rank in "23456789TJQKA"]
FIVES = [(0, 5), (1, 5), (2, 5), (3, 5)]  # (seat after the Hakem or caller, cards), in order
ORDER = {
    "hokm4": FIVES + [(seat, 4) for _ in range(2) for seat in range(4)],
    "court-piece": FIVES + [(seat, 4) for _ in range(2) for seat in range(4)],
    "hokm3": FIVES[:3] + [(seat, 4) for _ in range(3) for seat in range(3)],
    "hokm2": [(0, 5), (1, 5), (0, 4), (1, 4), (0, 4), (1, 4)],  # the rest is "unseen"
    "hokm2-draw": [(0, 5), (1, 5)],  # the rest is the "stock"
}
HEX, TEXT = set("0123456789abcdef"), {chr(c) for c in range(0x20, 0x7F)} - {"|"}


def numbers(fair, purpose, index):
    """The random stream: HMAC-SHA256 blocks read as 32-bit big-endian numbers."""
    key = bytes.fromhex(fair["server_seed"])
    for counter in itertools.count():
        text = "|".join(["hokm-deal/1", purpose, str(index), *fair["client_seeds"], str(counter)])
        block = hmac.new(key, text.encode("ascii"), hashlib.sha256).digest()
        yield from (int.from_bytes(block[i : i + 4], "big") for i in range(0, 32, 4))


def below(stream, m):  # 0 to m-1, skipping the few numbers that would favour some results
    return next(u for u in stream if u < 2**32 - 2**32 % m) % m


def shuffle(deck, stream):  # Fisher-Yates
    for i in range(len(deck) - 1, 0, -1):
        j = below(stream, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def check(record, number, part):
    """What does not match in the flips (number None) or in hand ``number``."""
    fair, variant, players = part["fair"], record["variant"], len(record["players"])
    seeds, options = fair["client_seeds"], record.get("options") or {}
    if not all(len(h) == 64 and set(h) <= HEX for h in (fair["commit"], fair["server_seed"])):
        return ["commit and server_seed are 64 lowercase hex characters"]
    if len(seeds) != players or not all(len(s) <= 64 and set(s) <= TEXT for s in seeds):
        return ["client_seeds"]
    if hashlib.sha256(bytes.fromhex(fair["server_seed"])).hexdigest() != fair["commit"]:
        return ["commit is not the SHA-256 of server_seed"]
    wrong = []
    if number is None:  # the flips: to the first ace (R2.2, R9.2.1), in pairs (R2.4)
        stream = numbers(fair, "draw", 0)
        deck = shuffle(DECK[:], stream)
        if part["first_seat"] != below(stream, players):
            wrong.append("first_seat")
        ace = options.get("ace_caller")  # R9.16: to the ace of that suit
        if variant == "hokm2":
            end = next((i + 2 for i in range(0, 52, 2) if deck[i][0] != deck[i + 1][0]), 52)
        else:
            end = 1 + next(i for i, c in enumerate(deck) if c[0] == "A" and ace in (None, c[1]))
        return wrong + (["cards"] if part["cards"] != deck[:end] else [])
    stream = numbers(fair, "deal", number)
    deck = shuffle([c for c in DECK if not (variant == "hokm3" and c == "2C")], stream)
    lead = part["caller"] if variant == "court-piece" else part["hakem"]
    seats, dealt = [[] for _ in range(players)], 0
    for after, count in ORDER[variant]:
        seats[(lead + after) % players] += deck[dealt : dealt + count]
        dealt += count
    rest = deck[dealt:]
    if set(part["first5"]) != set(seats[lead][:5]):
        wrong.append("first5")
    if variant == "hokm2-draw":
        if set(part["draw"]["dealer5"]) != set(seats[1 - lead][:5]):
            wrong.append("dealer5")
        if part["draw"]["stock"] != rest:
            wrong.append("stock")
    else:
        wrong += [f"cards[{s}]" for s in range(players) if set(part["cards"][s]) != set(seats[s])]
        if variant == "hokm2" and part.get("unseen", rest) != rest:
            wrong.append("unseen")
    blind = options.get("hidden_trump") == "blind"  # R9.14.1: card k of the first five
    if blind and part["hidden"]["card"] != seats[lead][below(stream, 5)]:  # k drawn next
        wrong.append("blind indicator")
    return wrong


def main(path):
    try:
        with open(path, encoding="utf-8-sig") as file:
            record = json.load(file)
        flips = record.get("hakem_draw") or record.get("dealer_draw")
        parts = [("flips", None, flips)] if flips else []
        parts += [(f"hand {n}", n, hand) for n, hand in enumerate(record["hands"])]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        print(f"cannot read the record {path}: {error}")
        return 1
    good, last = 0, len(record["hands"]) - 1
    for name, number, part in parts:
        fair = part.get("fair") or {}
        if not fair.get("server_seed"):
            if number == last and fair.get("commit"):  # a hand not over: its seed is still secret
                print(f"{name}: not over when the record was written: its seed is not revealed yet")
                good += 1
            else:
                print(f"{name}: not checked: no fair block with a revealed server seed")
            continue
        try:
            wrong = check(record, number, part)
        except (KeyError, TypeError, ValueError, IndexError, StopIteration) as error:
            wrong = [f"unreadable ({error!r})"]
        print(f"{name}: OK" if not wrong else f"{name}: does not match: {', '.join(wrong)}")
        good += not wrong
    return 0 if parts and good == len(parts) else 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python3 verify_deal.py RECORD.json")
    sys.exit(main(sys.argv[1]))
