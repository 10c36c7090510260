"""The key vocabulary (FORMAT.md, "Key vocabulary"): the keys memfiles itself gives the facts people state
about themselves, each with its subject and the one way its values are written.

Shared by every writer that names a key for free text: the deterministic extractor
(memfiles.capture.statements, for episodes and captured sessions) and the importers (memfiles.imports,
for other tools' free-text memories). So "prefers to be contacted by email", from a session or from a
Mem0 export, lands on `notification_channel = email` and supersedes `notification_channel = sms` as
keyed facts do.
"""

from __future__ import annotations

from dataclasses import dataclass

from memfiles.format.fields import Subject


@dataclass(frozen=True, slots=True)
class Term:
    """One key of the vocabulary: its subject and what its value holds."""

    key: str
    subject: Subject
    value: str


VOCABULARY: tuple[Term, ...] = (
    Term("name", "user_attribute", "the name the user gives"),
    Term("preferred_name", "user_preference", "what the user asks to be called"),
    Term("pronouns", "user_attribute", "the user's pronouns, e.g. she/her"),
    Term("notification_channel", "user_preference", "email, sms, phone, slack, whatsapp, telegram or post"),
    Term("languages", "user_attribute", "languages the user speaks, e.g. French, English"),
    Term("preferred_language", "user_preference", "the language the user wants replies in"),
    Term("timezone", "user_attribute", "a zone name or offset, e.g. Europe/Paris, PST, UTC+2"),
    Term("location", "user_attribute", "the place the user lives now"),
    Term("hometown", "user_attribute", "where the user is from"),
    Term("employer", "user_attribute", "the organisation the user works for"),
    Term("role", "user_attribute", "the user's job, e.g. software engineer"),
    Term("diet", "user_preference", "vegetarian, vegan, pescatarian, kosher, halal, gluten-free, keto, …"),
    Term("allergies", "constraint", "what the user is allergic to"),
    Term("marital_status", "user_attribute", "married, engaged, divorced, single, widowed"),
    Term("children", "user_attribute", "the user's children as they say it, e.g. two kids"),
    Term("pets", "user_attribute", "the user's pets as they say it, e.g. a dog named Rex"),
    Term("editor", "user_preference", "the code editor the user uses"),
    Term("operating_system", "user_preference", "macOS, Windows, Linux, …"),
    Term("programming_languages", "user_preference", "the languages the user codes in"),
    Term("goal", "goal", "what the user says they are working towards"),
    Term("budget", "constraint", "the budget the user states"),
)
TERMS: dict[str, Term] = {term.key: term for term in VOCABULARY}

# One spelling per contact channel: what people write → the value stored.
CHANNELS = {
    "email": "email",
    "e-mail": "email",
    "mail": "email",
    "emails": "email",
    "text": "sms",
    "texts": "sms",
    "text message": "sms",
    "text messages": "sms",
    "sms": "sms",
    "phone": "phone",
    "call": "phone",
    "calls": "phone",
    "phone call": "phone",
    "phone calls": "phone",
    "slack": "slack",
    "whatsapp": "whatsapp",
    "telegram": "telegram",
    "signal": "signal",
    "post": "post",
    "letter": "post",
}

DIETS = {
    "vegetarian": "vegetarian",
    "a vegetarian": "vegetarian",
    "vegan": "vegan",
    "a vegan": "vegan",
    "pescatarian": "pescatarian",
    "a pescatarian": "pescatarian",
    "pescetarian": "pescatarian",
    "kosher": "kosher",
    "halal": "halal",
    "gluten-free": "gluten-free",
    "gluten free": "gluten-free",
    "keto": "keto",
    "on keto": "keto",
    "on a keto diet": "keto",
    "lactose intolerant": "lactose-free",
    "lactose-intolerant": "lactose-free",
    "dairy-free": "dairy-free",
    "dairy free": "dairy-free",
    "plant-based": "vegan",
}


def subject_of(key: str) -> Subject | None:
    """The subject the vocabulary gives `key`, or None for a key outside it."""
    term = TERMS.get(key)
    return term.subject if term else None
