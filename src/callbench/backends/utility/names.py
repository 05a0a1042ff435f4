"""Name matching for the utility-billing `verify_caller` tool, and its measurement.

A caller says their full name; a speech-to-text engine spells it; the account holds the name as it
was registered. The reference benchmark compares the two with Soundex ("names match when their
Soundex codes agree, retaining the first letter"), which rejects Kamila for Camila (the first letter
is kept verbatim), rejects every reordered, shortened or nicknamed name, and accepts many different
people (Tim/Tom Reed, Kevin Walsh/Welch, Carl/Carla Peters share all codes). `soundex_match` is
that baseline; `names_match` is ours. Both are measured by `evaluate` on `name_pairs.csv`.

How `names_match` decides (each rule says why; every threshold is here, none per name):
1. Normalise: case, accents (NFKD, plus the letters NFKD leaves alone: Ł, Ø, ß, Æ, Đ), apostrophes
   dropped (O'Neill = ONeill), other punctuation and hyphens split tokens; honorifics dropped
   (a title is not part of the name); generation suffixes (Jr, Sr, III) set aside - two different
   suffixes are a father and a son, so they reject; one suffix alone is just omitted.
2. Align the tokens of both names (any order: surname first, "Sharma, Priya"), one token may match
   two or three adjacent tokens joined (O Brien / OBrien, de la Cruz / Delacruz, Lakshmi Priya /
   Lakshmipriya). The alignment with the most matched tokens, then the best match quality, wins.
3. Token match (`token_match`): equal; an initial against a name with that first letter; the
   same root in a small nickname table (below); a spelling variant. Spelling variants compare a
   phonetic skeleton (`skeleton`: c/k/q, ph/f, ck, sh, ch, silent h, gh, w/v, y/i, z/s, x/ks,
   long-e digraphs ee/ea/ie/ei, oo/u, doubled letters, silent final e) - equal skeletons match.
   Otherwise, for names of at least 5 letters (doubled letters counted once: shorter names differ
   by one vowel too often - Tim/Tom, Dina/Dana, Jon/Joan), with the same first sound and:
   - the same consonants and at most one vowel edit (two from 7 letters, where one vowel is a
     smaller share of the name: Catherine/Kathryn, Katelyn/Caitlin), or
   - one transposition of adjacent letters (a typing slip: Micheal, Gregroy, Venaktesh), or
   - from 6 letters, one substitution between consonants speech engines and typists confuse
     (m/n, d/t, b/p, g/k, v/f, s/z: Stephen/Steven, Subramaniam/Subramanian).
   Gender-marked endings veto a variant, because in the names of the languages covered here the
   ending is what tells a man's name from a woman's: final letters that differ where either is a
   vowel (Maria/Mario, Christina/Christian, Stephanie/Stephen, Julie/Julia); -elle/-ette against
   a name without it (Danielle/Daniel, Michelle/Michael); an added final e after -el, -is or
   consonant + in (Louise/Louis, Denise/Denis, Justine/Justin).
4. Decide from the alignment, with the on-file name's positions as roles:
   - surname check: the last on-file token is matched (not by an initial), or, when the record
     has three tokens or more, the one before it (a caller gives only the first of two surnames,
     "Maria Garcia" for "Maria Jose Garcia Lopez", or one half of a double-barrelled name);
   - given-name check: some other on-file token is matched, not by an initial the caller gave
     (a record's own initial may be matched by the caller's full name). A caller who goes by a
     middle name ("Scott Palmer" for "William Scott Palmer") passes;
   - no conflict: a name the caller said that the record lacks, in the same place as a name the
     record has that the caller did not say (between the same matched tokens), is a different
     person (Juan Pablo / Juan Carlos Rodriguez, Maria Garcia Perez / Lopez, Chen Mei Hua / Ling,
     a spouse's given name on the shared surname). Unmatched tokens on one side only are
     omitted or extra middle names, accepted.

Nicknames: `NICKNAMES` maps a short form to formal names; kept small and restricted to forms in
everyday use for the formal name (a caller gives the name they use, the account holds the legal
one). It accepts "Bill Turner" for "William Turner" and still rejects it for "Robert Turner".
`SPELLINGS` holds variant spellings no letter rule recovers (Sean/Shawn, Muhammad/Mohammed/Mohd).

Known limits (measured on the pairs, see the report): homophones of different people are accepted
(Toni/Tony, Francis/Frances, Colin/Colleen: from speech they cannot be told apart, so another
factor must); some real variants are rejected (Ximena/Jimena, Isabel/Isabelle, Ayyangar/Iyengar).

`name_pairs.csv`: labelled pairs written for callbench, CC0 (public domain dedication). Invented or
common names, no public figures; written before the matcher's rules, then kept unchanged.
"""

from __future__ import annotations

import csv
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

import jellyfish
from rapidfuzz.distance import OSA, Levenshtein

HONORIFICS = frozenset(
    "mr mrs ms miss mx mister missus dr doctor prof professor sir madam madame dame".split()
)
SUFFIXES = frozenset("jr junior sr senior ii iii iv".split())
# Surname particles: never a name on their own, so an unmatched one is not a conflict.
PARTICLES = frozenset("de del della der den la las los le van von da das dos di du st bin ibn".split())

# Short form -> formal names. Only forms in common everyday use for that formal name.
NICKNAMES: dict[str, tuple[str, ...]] = {
    "bill": ("william",), "billy": ("william",), "will": ("william",),
    "bob": ("robert",), "bobby": ("robert",), "rob": ("robert",),
    "rick": ("richard",), "rich": ("richard",), "dick": ("richard",),
    "jim": ("james",), "jimmy": ("james",),
    "mike": ("michael",), "mick": ("michael",),
    "liz": ("elizabeth",), "beth": ("elizabeth",), "betty": ("elizabeth",),
    "kate": ("katherine", "catherine"), "katie": ("katherine", "catherine"),
    "kathy": ("katherine", "catherine", "kathleen"), "cathy": ("catherine", "katherine"),
    "peggy": ("margaret",), "maggie": ("margaret",), "meg": ("margaret",),
    "tom": ("thomas",), "tommy": ("thomas",), "joe": ("joseph",),
    "tony": ("anthony", "antonio"), "dave": ("david",), "dan": ("daniel",), "danny": ("daniel",),
    "ted": ("edward", "theodore"), "ed": ("edward",), "eddie": ("edward",),
    "chris": ("christopher", "christine", "christina", "christian"),
    "alex": ("alexander", "alexandra"), "sam": ("samuel", "samantha"),
    "becky": ("rebecca",), "jenny": ("jennifer",), "jen": ("jennifer",),
    "pat": ("patrick", "patricia"), "trish": ("patricia",), "sue": ("susan",),
    "debbie": ("deborah",), "deb": ("deborah",), "nick": ("nicholas",), "matt": ("matthew",),
    "ben": ("benjamin",), "steve": ("stephen", "steven"), "andy": ("andrew",),
    "chuck": ("charles",), "charlie": ("charles",), "greg": ("gregory",),
    "larry": ("lawrence",), "tim": ("timothy",), "ken": ("kenneth",), "ron": ("ronald",),
    "pete": ("peter",), "abby": ("abigail",), "pam": ("pamela",), "vicky": ("victoria",),
    # Spanish and Indian everyday forms
    "pepe": ("jose",), "paco": ("francisco",), "lupe": ("guadalupe",), "chuy": ("jesus",),
    "nacho": ("ignacio",), "venky": ("venkatesh",),
}  # fmt: skip
SPELLINGS: tuple[frozenset[str], ...] = (
    frozenset({"sean", "shawn", "shaun"}),  # Irish spelling: no letter rule maps "sea" to "shaw"
    frozenset({"muhammad", "mohammed", "mohammad", "mohamed", "muhammed", "mohd"}),  # + abbr.
)

VOWELS = frozenset("aeiou")
CONFUSABLE = frozenset(frozenset(p) for p in ("mn", "dt", "bp", "gk", "vf", "sz"))
MAX_TOKENS = 8  # a longer name is compared on its first 8 tokens: the search grows factorially

EXACT, VARIANT, FUZZY, INITIAL, NONE = 4, 3, 2, 1, 0


def fold(text: str) -> str:
    """Lower case ASCII letters, digits, spaces; apostrophes vanish, other marks become spaces."""
    text = text.casefold()
    for src, dst in (("ł", "l"), ("ø", "o"), ("ß", "ss"), ("æ", "ae"), ("đ", "d"), ("ı", "i")):
        text = text.replace(src, dst)
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = re.sub(r"['\u2019`]", "", text)
    return re.sub(r"[^a-z0-9]+", " ", text).strip()


def tokens(name: str) -> list[str]:
    """The name's tokens after `fold`, honorifics dropped (suffixes kept)."""
    return [t for t in fold(name).split() if t not in HONORIFICS]


def soundex(word: str) -> str:
    """Classic American Soundex of one word (accents folded first; "" for no letters)."""
    letters = re.sub(r"[^a-z]", "", fold(word))
    return jellyfish.soundex(letters) if letters else ""


def soundex_match(given: str, on_file: str) -> bool:
    """The reference's baseline: the same number of tokens, each token's Soundex equal, in order.

    Normalised as ours (case, accents, punctuation, honorifics) so the comparison isolates the
    matching rule itself."""
    a, b = tokens(given), tokens(on_file)
    return bool(a) and len(a) == len(b) and all(soundex(x) == soundex(y) for x, y in zip(a, b))


@lru_cache(maxsize=4096)
def skeleton(token: str) -> frozenset[str]:
    """Phonetic spelling skeletons of one folded token (two when "ch" may be k or sh)."""
    s = token
    if len(s) > 5:
        s = re.sub(r"^mac(?=[^aeiou])", "mc", s)  # MacDonald / McDonald
    s = re.sub(r"(?<=[aeo]u)x$", "", s)  # French silent final x: Thibodeaux
    s = s.replace("tch", "ch").replace("sch", "sh")
    s = re.sub(r"ch(?=r)", "k", s)  # Christopher, Chris
    s = s.replace("ph", "f").replace("ck", "k").replace("tz", "z").replace("x", "ks")
    s = s.replace("q", "k")
    s = re.sub(r"gh(?=[^aeiou]|$)", "", s).replace("gh", "g")  # Leigh, Meghan
    s = re.sub(r"sh(?=[^aeiouy])", "s", s)  # Shrinivasan, Lakshmi, Shweta
    s = s.replace("sh", "X").replace("ch", "C")  # placeholders: X = sh, C = k or sh
    s = re.sub(r"c(?=[eiy])", "s", s).replace("c", "k")
    s = re.sub(r"g(?=[eiy])", "j", s)  # Geoffrey / Jeffrey
    s = re.sub(r"(?<=[aeiou])w(?=[^aeiou]|$)", "u", s).replace("w", "v")  # Shawn; Wenkatesh
    s = re.sub(r"(?<!^)y", "i", s)
    s = re.sub(r"(?<!^)h", "", s)  # John, Sarah, Rhonda, Khalid, Bhavna, Thomas
    s = s.replace("z", "s")
    s = re.sub(r"ee|ea|ie|ei", "i", s).replace("oo", "u")  # Neil/Neal, Reed/Reid, Pooja/Puja
    s = re.sub(r"(.)\1+", r"\1", s)
    if len(s) > 3:
        s = re.sub(r"(?<=[^aeiou])e$", "", s)  # silent final e: Catherine, Graeme
    return frozenset({s.replace("C", "k").replace("X", "x"), s.replace("C", "x").replace("X", "x")})


def _collapse(token: str) -> str:
    return re.sub(r"(.)\1+", r"\1", token)


def _gender_veto(a: str, b: str) -> bool:
    """Endings that mark a different (usually the other gender's) name; see the module doc."""
    ra, rb = _collapse(re.sub(r"ah$", "a", a)), _collapse(re.sub(r"ah$", "a", b))
    for x, y in ((a, b), (b, a)):
        if re.search(r"(elle|ette)$", x) and not re.search(r"(elle|ette)$", y):
            return True
    for x, y in ((ra, rb), (rb, ra)):
        if x == y + "e" and re.search(r"(el|is|[^aeiou]in)$", y):
            return True
    return False


def _final_vowel_veto(sa: str, sb: str) -> bool:
    ea, eb = sa[-1], sb[-1]
    return ea != eb and (ea in VOWELS or eb in VOWELS)


def _consonants(s: str) -> str:
    return "".join(c for c in s if c not in VOWELS)


def _one_confusable_substitution(a: str, b: str) -> bool:
    if len(a) != len(b):
        return False
    diff = [(x, y) for x, y in zip(a, b) if x != y]
    return len(diff) == 1 and frozenset(diff[0]) in CONFUSABLE


def spelling_match(a: str, b: str) -> int:
    """VARIANT, FUZZY or NONE for two folded tokens of two letters or more."""
    if a == b:
        return EXACT
    for group in SPELLINGS:
        if a in group and b in group:
            return VARIANT
    if _gender_veto(a, b):
        return NONE
    ska, skb = skeleton(a), skeleton(b)
    if ska & skb:
        return VARIANT if not _final_vowel_veto(min(ska), min(skb)) else NONE
    ra, rb = _collapse(a), _collapse(b)
    if min(len(ra), len(rb)) < 5 or all(_final_vowel_veto(x, y) for x in ska for y in skb):
        return NONE
    if len(ra) == len(rb) and OSA.distance(ra, rb) == 1 and Levenshtein.distance(ra, rb) == 2:
        return FUZZY  # one transposition of adjacent letters
    longest = max(len(ra), len(rb))
    for sa in ska:
        for sb in skb:
            if sa[0] != sb[0] or _final_vowel_veto(sa, sb):
                continue
            if _consonants(sa) == _consonants(sb):
                if Levenshtein.distance(sa, sb) <= (1 if longest <= 6 else 2):
                    return FUZZY
            elif min(len(ra), len(rb)) >= 6 and _one_confusable_substitution(sa, sb):
                return FUZZY
    return NONE


def _roots(token: str) -> set[str]:
    return {token, *NICKNAMES.get(token, ())}


def token_match(a: str, b: str) -> int:
    """How well two folded tokens match: EXACT, VARIANT, FUZZY, INITIAL or NONE."""
    if a == b:
        return EXACT
    if len(a) == 1 or len(b) == 1:
        return INITIAL if a[0] == b[0] else NONE
    best = spelling_match(a, b)
    if best >= VARIANT:
        return best
    ra, rb = _roots(a), _roots(b)
    if len(ra) > 1 or len(rb) > 1:  # a nickname on either side: compare the formal names
        for x in ra:
            for y in rb:
                if (x, y) != (a, b) and spelling_match(x, y) >= VARIANT:
                    return VARIANT
    return best


@dataclass(frozen=True)
class _Match:
    caller: tuple[int, ...]  # caller token indices (adjacent)
    record: tuple[int, ...]  # on-file token indices (adjacent)
    quality: int
    caller_initial: bool  # the caller gave only an initial for a full name on file


def _align(a: list[str], b: list[str]) -> list[_Match]:
    """The best set of disjoint matches between the caller's tokens a and the record's b."""
    candidates: list[_Match] = []
    for i in range(len(a)):
        for j in range(len(b)):
            q = token_match(a[i], b[j])
            if q:
                initial = len(a[i]) == 1 and len(b[j]) > 1
                candidates.append(_Match((i,), (j,), q, initial))
            for k in (2, 3):  # joined tokens on one side against one token on the other
                if i + k <= len(a) and len(b[j]) > 1:
                    q = token_match("".join(a[i : i + k]), b[j])
                    if q >= VARIANT:
                        candidates.append(_Match(tuple(range(i, i + k)), (j,), q, False))
                if j + k <= len(b) and len(a[i]) > 1:
                    q = token_match(a[i], "".join(b[j : j + k]))
                    if q >= VARIANT:
                        candidates.append(_Match((i,), tuple(range(j, j + k)), q, False))
    by_start: dict[int, list[_Match]] = {}
    for m in candidates:
        by_start.setdefault(m.caller[0], []).append(m)
    # (tokens covered, quality weighted by record tokens, minus how far matches move tokens): all
    # additive; the last breaks ties toward the order the names were given in.
    Score = tuple[int, int, int]

    @lru_cache(maxsize=None)
    def best(i: int, used_b: frozenset[int]) -> tuple[Score, tuple[_Match, ...]]:
        """The best matches of caller tokens i.. given the record tokens already used (a dynamic
        programme: at most len(a) * 2**len(b) states)."""
        if i >= len(a):
            return (0, 0, 0), ()
        result = best(i + 1, used_b)  # caller token i left unmatched
        for m in by_start.get(i, ()):
            if used_b.isdisjoint(m.record):
                (covered, quality, moved), rest = best(
                    m.caller[-1] + 1, used_b | frozenset(m.record)
                )
                score = (
                    covered + len(m.caller) + len(m.record),
                    quality + m.quality * len(m.record),
                    moved - abs(m.caller[0] - m.record[0]),
                )
                if score > result[0]:
                    result = (score, (m, *rest))
        return result

    return list(best(0, frozenset())[1])


def _slots(matches: list[_Match], n_caller: int, n_record: int) -> tuple[dict, dict]:
    """Each unmatched token's place: the record position of the matched token before it.

    The caller's tokens are first rotated so their matches run in the record's order, so that a
    surname said first ("Smith Joan Michael") puts Joan where John sits in "John Michael Smith"."""
    partner = {i: min(m.record) for m in matches for i in m.caller}

    def inversions(order: list[int]) -> int:
        seq = [partner[i] for i in order if i in partner]
        return sum(1 for x, y in zip(seq, seq[1:]) if y < x)

    rotations = [list(range(r, n_caller)) + list(range(r)) for r in range(max(n_caller, 1))]
    order = min(rotations, key=inversions)
    caller_slot, record_slot, last = {}, {}, -1
    for i in order:
        if i in partner:
            last = max(r for m in matches if i in m.caller for r in m.record)
        else:
            caller_slot[i] = last
    last = -1
    matched_record = {j for m in matches for j in m.record}
    for j in range(n_record):
        if j in matched_record:
            last = j
        else:
            record_slot[j] = last
    return caller_slot, record_slot


def names_match(given: str, on_file: str) -> bool:
    """Whether the name a caller gave is the account holder's name on file (module doc: rules)."""
    a_all, b_all = tokens(given)[:MAX_TOKENS], tokens(on_file)[:MAX_TOKENS]
    suffix_a = {t for t in a_all if t in SUFFIXES}
    suffix_b = {t for t in b_all if t in SUFFIXES}
    if suffix_a and suffix_b and suffix_a != suffix_b:
        return False  # Jr against Sr: a father and a son
    a = [t for t in a_all if t not in SUFFIXES]
    b = [t for t in b_all if t not in SUFFIXES]
    if not a or not b:
        return False
    matches = _align(a, b)
    matched_b = {j: m for m in matches for j in m.record}
    core_b = [j for j, t in enumerate(b) if t not in PARTICLES]
    if not core_b:
        return False

    def full(j: int) -> bool:  # matched, and not by an initial the caller gave for a full name
        return j in matched_b and not matched_b[j].caller_initial

    surname = core_b[-1] if full(core_b[-1]) else None
    if surname is None and len(core_b) >= 3 and full(core_b[-2]):
        surname = core_b[-2]
    if surname is None:
        return False
    surname_match = matched_b[surname]
    given_ok = any(full(j) and matched_b[j] is not surname_match for j in core_b)
    if len(core_b) > 1 and not given_ok:
        return False
    caller_slot, record_slot = _slots(matches, len(a), len(b))
    said = {s for i, s in caller_slot.items() if a[i] not in PARTICLES}
    missing = {s for j, s in record_slot.items() if b[j] not in PARTICLES}
    return not (said & missing)


# --- the labelled pairs and the measurement -----------------------------------------------

CATEGORIES = frozenset(
    "exact_variant misspelling transcription reordered extra_token missing_token nickname indian "
    "hispanic similar_different spouse_or_relative unrelated".split()
)


@dataclass(frozen=True)
class NamePair:
    given: str
    on_file: str
    same_person: bool
    category: str


def load_pairs(path: str | Path | None = None) -> list[NamePair]:
    """The labelled pairs (default: the packaged `name_pairs.csv`)."""
    if path is None:
        text = resources.files(__package__).joinpath("name_pairs.csv").read_text("utf-8")
    else:
        text = Path(path).read_text("utf-8")
    pairs = []
    for row in csv.DictReader(text.splitlines()):
        if row["same_person"] not in ("0", "1") or row["category"] not in CATEGORIES:
            raise ValueError(f"name pairs: bad row {row}")
        pairs.append(
            NamePair(row["given"], row["on_file"], row["same_person"] == "1", row["category"])
        )
    return pairs


MATCHERS = {"soundex": soundex_match, "callbench": names_match}


def evaluate(pairs: Iterable[NamePair]) -> dict:
    """False accepts and false rejects of each matcher, overall and per category."""
    pairs = list(pairs)
    different = sum(1 for p in pairs if not p.same_person)
    same = len(pairs) - different
    out: dict = {}
    for name, matcher in MATCHERS.items():
        fa, fr, by_category, errors = 0, 0, {}, []
        for p in pairs:
            accepted = matcher(p.given, p.on_file)
            wrong = accepted != p.same_person
            fa += wrong and accepted
            fr += wrong and not accepted
            cat = by_category.setdefault(p.category, {"pairs": 0, "errors": 0})
            cat["pairs"] += 1
            cat["errors"] += wrong
            if wrong:
                errors.append({"given": p.given, "on_file": p.on_file, "category": p.category,
                               "error": "false accept" if accepted else "false reject"})  # fmt: skip
        out[name] = {
            "false_accepts": fa,
            "different": different,
            "false_accept_rate": round(fa / different, 4) if different else 0.0,
            "false_rejects": fr,
            "same": same,
            "false_reject_rate": round(fr / same, 4) if same else 0.0,
            "errors": fa + fr,
            "by_category": dict(sorted(by_category.items())),
            "wrong": errors,
        }
    return out
