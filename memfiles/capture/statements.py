"""Facts the user stated about themselves, found without a model (FORMAT.md, "Facts proposed from what was said").

Pure: text in, proposals out, each on a key of the vocabulary (memfiles.format.vocabulary). Precision
first, since a wrong proposal costs a person's attention: a proposal needs an explicit first-person,
present-tense statement at the start of a clause ("I'm vegetarian", "please email me rather than
text", "I live in Toronto"). Questions, hypotheticals (if, would, wish, maybe, used to, …), negations,
text in quotes or code, and statements about other people ("my sister is vegan") are never read as
the user's facts. Open values (a place, an employer) must be written as names (capitalised).

`from_note` reads another tool's memory note ("Prefers to be contacted by email", "User lives in
Toronto") the same way, so an import lands on the same keys.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from memfiles.format.fields import Subject
from memfiles.format.vocabulary import CHANNELS, DIETS, TERMS

MAX_CLAUSE_CHARS = 300  # longer clauses are prose, not a statement of a fact


@dataclass(frozen=True, slots=True)
class Proposal:
    """A fact the user stated: key and value on the vocabulary, and the clause that says it."""

    key: str
    value: str
    subject: Subject
    evidence: str


# --- what is never read as the user's own present fact ---

_QUOTED = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”|`[^`\n]*`|```.*?```", re.S)
_SENTENCES = re.compile(r"(?<=[.!?;])\s+|\n+")
_OPENS = r"(?=(?:please\s+|i\b|i'|i’|my\b))"  # a new clause starts with the user speaking again
_CLAUSES = re.compile(r",?\s+(?:and|but|so|also|plus)\s+" + _OPENS + r"|,\s+" + _OPENS, re.I)
_HYPOTHETICAL = re.compile(
    r"\b(?:if|would|could|should|might|maybe|perhaps|wish|hope|hoping|suppose|imagine|pretend|someday|"
    r"used to|when i was|thinking (?:about|of)|considering|going to|gonna|wanna|want to be|plan to|planning|"
    r"tried|trying to be|pretending|dream|sometimes|might be|probably|guess|think|back then|growing up|as a kid|"
    r"when (?:i|he|she|we|they|it) (?:was|were))\b",
    re.I,
)
_NEGATION = re.compile(r"\b(?:not|never|no longer|no|nor|neither|without)\b|n['’]t\b", re.I)

# --- the start of a clause: a few filler words, then the user speaking of themselves ---

_FILLERS = (
    "well|also|oh|so|btw|by the way|actually|yeah|yes|ok|okay|and|but|hi|hello|hey|fyi|just so you know|"
    "as you know|for the record|for context|note that|now"
)
_LEAD = rf"^(?:(?i:{_FILLERS})[,!:]?\s+)*"
_I = r"(?i:i)"
_IAM = r"(?i:i['’]m|i am|im)\s+"
_PROPER = r"(?P<v>[A-Z][\w'’&.-]*(?:\s+(?:(?:of|de|du|la|le|the|and|&|upon|on|am|del|da|di)\s+)?[A-Z][\w'’&.-]*)*)"
_TAIL = r"(?:\s+(?i:now|these days|nowadays|too|as well|currently|at the moment|right now))?\s*[.!]*$"
_CHANNEL = (
    r"(?P<v>(?i:e-?mails?|mail|text(?: messages?)?|texts|sms|phone(?: calls?)?|calls?|slack|whatsapp|telegram|signal))"
)
_LANGS = (
    "English|French|Spanish|German|Italian|Portuguese|Mandarin|Chinese|Cantonese|Japanese|Korean|Hindi|Arabic|"
    "Russian|Dutch|Swedish|Norwegian|Danish|Finnish|Polish|Turkish|Greek|Hebrew|Vietnamese|Thai|Indonesian|"
    "Tagalog|Urdu|Bengali|Punjabi|Tamil|Ukrainian|Czech|Hungarian|Romanian|Persian|Farsi|Swahili|Catalan|Malay"
)
_LANG_LIST = rf"(?P<v>(?:{_LANGS})(?:(?:,\s*|,?\s+and\s+)(?:{_LANGS}))*)"
_JOBS = (
    r"(?:software |data |civil |mechanical |electrical |sales |site reliability |backend |frontend |front-end |"
    r"back-end |full-stack |full stack |machine learning |ml |devops |qa |security |network |product |project |"
    r"marketing |office |general |account |registered |high school |elementary school |middle school |"
    r"primary school |kindergarten |graduate |phd |college |university |medical |law |nursing |art |music |"
    r"freelance |senior |junior |staff |principal |lead |head |chief |public school |social |"
    r"veterinary |dental |research )*"
    r"(?:engineer|developer|programmer|teacher|nurse|doctor|physician|surgeon|designer|manager|accountant|lawyer|"
    r"attorney|architect|scientist|researcher|student|professor|analyst|consultant|journalist|chef|"
    r"pharmacist|therapist|dentist|electrician|plumber|firefighter|librarian|paramedic|pilot|veterinarian|"
    r"vet|mechanic|carpenter|economist|paralegal|recruiter|cashier|barista|waiter|waitress|"
    r"salesperson|social worker|counselor|counsellor|psychologist|psychiatrist|police officer|"
    r"software developer|web developer|tester|administrator|sysadmin|entrepreneur|founder|cto|ceo|"
    r"intern|tutor|lecturer|translator|editor|copywriter|photographer|midwife|dietitian|nutritionist)"
)
_EDITORS = (
    r"(?P<v>(?:Neo)?[Vv]im|neovim|Emacs|emacs|VS ?Code|VSCode|vscode|Visual Studio Code|IntelliJ(?: IDEA)?|PyCharm|"
    r"WebStorm|GoLand|Sublime Text|Sublime|Zed|Helix|Xcode|Android Studio|Nova|Kate|nano)"
)
_SYSTEMS = (
    r"(?P<v>macOS|MacOS|OS X|a Mac|Mac|Windows(?: \d+)?|Linux|Ubuntu|Fedora|Debian|Arch(?: Linux)?|NixOS|"
    r"Pop!_OS|ChromeOS)"
)
_DIET_WORDS = "|".join(map(re.escape, DIETS))
_EATEN = r"(?P<v>(?i:vegetarian|vegan|pescatarian|kosher|halal|gluten-free|keto|plant-based))"
_PETS = (
    r"(?i:dogs?|cats?|puppy|puppies|kittens?|rabbits?|bunny|hamsters?|parrots?|birds?|turtles?|tortoise|"
    r"guinea pigs?|horses?)"
)
_KIDS = r"(?:(?i:little|young|grown|teenage|wonderful|beautiful|amazing|lovely|adult)\s+)?"
_CONTACTED = r"(?i:contacted|reached|notified|updated|pinged)"
_REACH_ME = (
    r"(?i:the best way to (?:reach|contact) me is|you can (?:reach|contact) me|(?:please\s+)?(?:contact|reach) me)"
)
_PLS = (
    r"Python|JavaScript|TypeScript|Go|Golang|Rust|Java|Kotlin|Swift|C\+\+|C#|Ruby|PHP|Scala|Haskell|Elixir|Clojure|"
    r"Julia|Lua|Dart|Perl|OCaml|Zig|Erlang|F#|Objective-C|R"
)
_PL_LIST = rf"(?P<v>(?:{_PLS})(?:(?:,\s*|,?\s+and\s+)(?:{_PLS}))*)(?![\w+#])"
_ZONE = (
    r"(?P<v>[A-Z][a-z]+/[A-Z][A-Za-z_]+|(?:UTC|GMT) ?[+−-] ?\d{1,2}(?::\d\d)?|UTC|GMT|"
    r"(?:P|M|C|E|AK|H)[SD]?T|CET|CEST|EET|EEST|WET|BST|IST|JST|KST|AEST|AEDT|NZST|SGT|HKT|"
    r"(?i:pacific|eastern|central|mountain)(?= time))"
)
_NUMBER = r"(?:a|an|one|two|three|four|five|six|\d)"


@dataclass(frozen=True, slots=True)
class _Rule:
    key: str
    pattern: re.Pattern[str]
    verb: str = ""  # kept before the value (a goal's "save for …")


def _rule(key: str, body: str, verb: str = "") -> _Rule:
    return _Rule(key, re.compile(_LEAD + body), verb)


_RULES: tuple[_Rule, ...] = (
    _rule("name", r"(?i:my name is|my name['’]s)\s+(?P<v>[A-Z][a-z]+(?:[ -][A-Z][a-z]+)?)" + _TAIL),
    _rule("preferred_name", r"(?i:please\s+)?(?i:call me)\s+(?P<v>[A-Z][a-z]+)" + _TAIL),
    _rule("pronouns", r"(?i:my pronouns are)\s+(?P<v>[a-z]+/[a-z]+(?:/[a-z]+)?)" + _TAIL),
    # contact: a stated preference, never a one-off request ("email me the report")
    _rule(
        "notification_channel",
        r"(?i:please\s+)?(?i:(?:just|only|always)\s+)?(?P<v>(?i:e-?mail|text|call|message|whatsapp|slack))\s+"
        r"(?i:me)\s+(?i:rather than|instead of|over)\s+\w+",
    ),
    _rule(
        "notification_channel",
        _I + r"\s+(?i:(?:much\s+)?prefer)\s+(?:(?i:to be)\s+)?" + _CONTACTED + r"\s+"
        r"(?i:by|via|through|over|on)\s+" + _CHANNEL + r"\b",
    ),
    _rule(
        "notification_channel", _I + r"\s+(?i:prefer)\s+" + _CHANNEL + r"\s+(?i:over|to|rather than|instead of)\s+\w+"
    ),
    _rule(
        "notification_channel",
        _REACH_ME + r"\s+(?i:(?:is\s+)?(?:by|via|through|over|on)\s+)" + _CHANNEL + r"\b",
    ),
    # languages and time zone
    _rule(
        "languages",
        _I + r"\s+(?i:speak)\s+(?i:(?:fluent|native)\s+)?" + _LANG_LIST + r"(?:\s+(?i:fluently|natively))?" + _TAIL,
    ),
    _rule("languages", r"(?i:my (?:native|first|mother) (?:language|tongue) is)\s+" + _LANG_LIST + _TAIL),
    _rule("languages", _IAM + r"(?i:a\s+)?(?i:native)\s+(?P<v>(?:" + _LANGS + r"))\s+(?i:speaker)" + _TAIL),
    _rule(
        "preferred_language",
        r"(?i:please\s+)?(?i:(?:always\s+)?(?:reply|answer|respond|write|talk)(?: to me)?)\s+(?i:in)\s+"
        r"(?P<v>(?:" + _LANGS + r"))" + _TAIL,
    ),
    _rule("timezone", r"(?i:my time ?zone is|my tz is)\s+" + _ZONE),
    _rule("timezone", _IAM + r"(?i:in|on)\s+(?i:the\s+)?" + _ZONE + r"(?:\s+(?i:time(?: ?zone)?))?" + _TAIL),
    # where, who for, as what
    _rule(
        "location",
        _I + r"\s+(?i:live|reside|am based|['’]m based|am living|['’]m living|currently live)\s+(?i:in)\s+" + _PROPER,
    ),
    _rule("location", _IAM + r"(?i:based|living)\s+(?i:in)\s+" + _PROPER),
    _rule("hometown", _IAM + r"(?i:originally\s+)?(?i:from)\s+" + _PROPER + _TAIL),
    _rule("employer", _I + r"\s+(?i:work|am working|['’]m working|currently work)\s+(?i:at|for)\s+" + _PROPER),
    _rule("employer", _IAM + r"(?i:employed)\s+(?i:at|by)\s+" + _PROPER),
    _rule(
        "role",
        _I + r"\s+(?i:work|am working|['’]m working)\s+(?:(?i:at|for)\s+[A-Z][\w'’&.-]*(?:\s+[A-Z][\w'’&.-]*)*\s+)?"
        r"(?i:as)\s+(?i:an?)\s+(?P<v>(?i:" + _JOBS + r"))\b",
    ),
    _rule(
        "role",
        _IAM + r"(?i:an?)\s+(?P<v>(?i:" + _JOBS + r"))(?:\s+(?i:at|for|in|by profession|by trade)\b.*)?" + r"\s*[.!]*$",
    ),
    # diet and allergies
    _rule(
        "diet",
        _IAM + r"(?i:(?:a\s+)?(?:strict\s+|fully\s+|mostly\s+)?)(?P<v>(?i:" + _DIET_WORDS + r"))" + _TAIL,
    ),
    _rule(
        "diet",
        _I + r"\s+(?i:eat|follow|keep)\s+(?i:(?:an?\s+)?(?:strict\s+)?)" + _EATEN + r"(?:\s+(?i:diet))?" + _TAIL,
    ),
    _rule(
        "allergies",
        _IAM + r"(?i:(?:severely|very|deathly|mildly|highly)\s+)?(?i:allergic)\s+(?i:to)\s+"
        r"(?P<v>[a-zA-Z][\w -]{1,40}?)" + _TAIL,
    ),
    _rule(
        "allergies",
        _I + r"\s+(?i:have)\s+(?i:an?)\s+(?i:(?:severe|mild|bad)\s+)?(?P<v>[a-z]+(?: [a-z]+)?)\s+(?i:allergy)" + _TAIL,
    ),
    # family and pets
    _rule(
        "marital_status",
        _IAM + r"(?P<v>(?i:married|engaged|divorced|widowed|single))(?:\s+(?i:to|with)\s+[A-Z]\w*)?" + _TAIL,
    ),
    _rule(
        "children",
        _I
        + r"\s+(?i:have|['’]ve got|have got)\s+(?P<v>"
        + _NUMBER
        + r"\s+"
        + _KIDS
        + r"(?i:kids?|children|child|sons?|daughters?)(?:\s+(?i:and)\s+"
        + _NUMBER
        + r"\s+(?i:sons?|daughters?))?)\b",
    ),
    _rule(
        "pets",
        _I
        + r"\s+(?i:have|['’]ve got|have got|own)\s+(?P<v>"
        + _NUMBER
        + r"\s+(?:[a-z]+\s+)?"
        + _PETS
        + r"(?:\s+(?i:named|called)\s+[A-Z][a-z]+(?:\s+(?i:and)\s+[A-Z][a-z]+)?)?)(?![\w-])",
    ),
    # tools and stack
    _rule(
        "editor",
        _I + r"\s+(?i:use|code in|work in|write code in|mostly use|always use|prefer)\s+" + _EDITORS + r"(?![\w-])",
    ),
    _rule("editor", r"(?i:my (?:editor|ide) is)\s+" + _EDITORS + r"(?![\w-])"),
    _rule(
        "operating_system",
        _I
        + r"(?:['’]m| am|\s+(?i:use|run))\s+(?i:(?:on|using|running)\s+)?"
        + _SYSTEMS
        + r"(?![\w-])(?:\s+(?i:laptop|machine|computer|desktop))?"
        + _TAIL,
    ),
    _rule(
        "programming_languages",
        _I + r"\s+(?i:code|program|write code|develop|mostly write|mainly write|write)\s+"
        r"(?i:(?:mostly|mainly|primarily)\s+)?(?i:in)\s+" + _PL_LIST,
    ),
    # goals and constraints
    _rule(
        "goal",
        r"(?i:my (?:main |current |big |biggest |long-term )?goal(?: right now| this year)? is)\s+(?i:to\s+)?"
        r"(?P<v>[a-z][^.!?]{2,80})$",
    ),
    _rule("goal", _IAM + r"(?i:training)\s+(?i:for)\s+(?P<v>(?i:an?|the|my)\s+[^.!?,]{2,60})$", "train for"),
    _rule("goal", _IAM + r"(?i:saving(?: up)?)\s+(?i:for)\s+(?P<v>(?i:an?|the|my)\s+[^.!?,]{2,60})$", "save for"),
    _rule(
        "budget",
        r"(?i:my budget is|my budget['’]s)\s+(?P<v>(?i:(?:about|around|under|up to|at most|max)\s+)?"
        r"(?:[$€£]\s?\d[\d,.]*k?|\d[\d,.]*k?\s?(?i:dollars|euros|pounds|usd|eur|gbp))"
        r"(?:\s*(?i:a|per)\s+(?i:month|year|night|week|person))?)" + _TAIL,
    ),
)
_NEGATION_OK = {"notification_channel"}  # "rather than" and "instead of" are how a preference is said


def _value(key: str, raw: str, verb: str) -> str | None:
    value = " ".join(raw.split()).strip(" .,!;:")
    if not value:
        return None
    lowered = value.casefold()
    if key == "notification_channel":
        return CHANNELS.get(lowered) or CHANNELS.get(lowered.rstrip("s"))
    if key == "diet":
        return DIETS.get(lowered) or DIETS.get(lowered.removeprefix("on ").strip())
    if key == "timezone" and lowered in ("pacific", "eastern", "central", "mountain"):
        return f"{value.capitalize()} time"
    if key == "operating_system":
        return "macOS" if lowered in ("mac", "a mac", "macos", "os x") else value
    if key in ("role", "allergies", "children", "goal", "marital_status"):
        value = lowered
    if key == "pets" or key == "children":
        value = re.sub(r"^one\b", "a", value)
    return f"{verb} {value}" if verb else value


def _clauses(text: str) -> Iterable[str]:
    for sentence in _SENTENCES.split(_QUOTED.sub(" … ", text)):
        sentence = sentence.strip()
        if not sentence or sentence.endswith("?") or len(sentence) > 4 * MAX_CLAUSE_CHARS:
            continue
        for clause in _CLAUSES.split(sentence):
            clause = clause.strip().rstrip(".!;")
            if clause and len(clause) <= MAX_CLAUSE_CHARS and "…" not in clause:
                yield clause


def from_text(text: str) -> list[Proposal]:
    """What one thing the user said states about them, in the order said (a key once: its last value)."""
    found: dict[str, Proposal] = {}
    for clause in _clauses(text):
        if _HYPOTHETICAL.search(clause):
            continue
        negated = bool(_NEGATION.search(clause))
        for rule in _RULES:
            if negated and rule.key not in _NEGATION_OK:
                continue
            match = rule.pattern.search(clause)
            if match is None:
                continue
            value = _value(rule.key, match["v"], rule.verb)
            if value and (rule.key not in found or found[rule.key].evidence != clause):
                found.pop(rule.key, None)
                found[rule.key] = Proposal(rule.key, value, TERMS[rule.key].subject, clause)
    return list(found.values())


def from_turns(turns: Iterable[str]) -> list[Proposal]:
    """What the user's turns of one conversation state about them; a key said twice keeps its last value."""
    found: dict[str, Proposal] = {}
    for turn in turns:
        for proposal in from_text(turn):
            found.pop(proposal.key, None)
            found[proposal.key] = proposal
    return list(found.values())


_SPOKEN = re.compile(r"^\s*(?:user|human)\s*:\s*(?P<said>.+)$", re.I)
_ASKED = re.compile(r"^(?:Task|Also asked):\s*(?P<said>.+)$")


def user_words(summary: str, transcript: bool) -> list[str]:
    """What the user said in an episode: its `User:` (or `Human:`) lines and, in a captured or imported
    transcript's summary, its `Task:` and `Also asked:` prompts. An agent's own prose is not read."""
    said: list[str] = []
    for line in summary.splitlines():
        spoken = _SPOKEN.match(line)
        if spoken:
            said.append(spoken["said"])
            continue
        asked = _ASKED.match(line) if transcript else None
        if asked:
            said += asked["said"].split(" | ")
    return said


# Another tool's memory note, written about the user: "Prefers email", "User lives in Toronto".
_NOTE_SUBJECT = re.compile(r"^(?:the\s+)?user(?:['’]s)?\s+|^(?:they|he|she)\s+", re.I)
_NOTE_VERBS = (
    (re.compile(r"^(?:is|am)\s+", re.I), "I am "),
    (re.compile(r"^(?:their|his|her)\s+", re.I), "my "),
    (re.compile(r"^(name|time ?zone|goal|budget|pronouns|native language|first language)\s+is\s+", re.I), r"my \1 is "),
    (re.compile(r"^allergic\s+to\s+", re.I), "I am allergic to "),
    (re.compile(r"^(vegetarian|vegan|pescatarian|married|engaged|divorced)$", re.I), r"I am \1"),
    (
        re.compile(r"^(prefer|live|work|speak|use|code|program|write|have|own|eat|follow|keep|reside)s\s+", re.I),
        r"I \1 ",
    ),
    (re.compile(r"^has\s+", re.I), "I have "),
)


def from_note(text: str) -> Proposal | None:
    """The vocabulary's fact in a memory note another tool wrote about the user, when it states exactly one."""
    note = _NOTE_SUBJECT.sub("", " ".join(text.split()).rstrip("."))
    for pattern, replacement in _NOTE_VERBS:
        if pattern.search(note):
            note = pattern.sub(replacement, note, count=1)
            break
    found = from_text(note)
    return found[0] if len(found) == 1 else None
