"""Words as recall compares them: case, accents and punctuation folded, stop words dropped, stemmed.

Pure and language-light: general English only (a stop-word list, contractions, common irregular
verb and noun forms, a few suffixes), so "went" meets "go", "adoption" meets "adopt" and
"investing" meets "invested", with no model and no download.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_WORD = re.compile(r"[^\W_]+")
_NOT = re.compile(r"(\w+)n['’]t\b")
_CONTRACTED = {"wo": "will", "ca": "can", "sha": "shall"}  # won't, can't, shan't
# Common English function words (NLTK's list plus a few): they carry no topic.
_STOPWORDS = """
a about above after again against all also am an and any are as at be because been before being below between
both but by can could did do does doing down during each few for from further had has have having he her here
hers herself him himself his how i if in into is it its itself just me might mine more most my myself no nor not
now of off on once only or other our ours ourselves out over own please same she should so some such than that
the their theirs them themselves then there these they this those through to too under until up very was we were
what when where which while who whom whose why will with would you your yours yourself yourselves ll re ve
"""
STOPWORDS = frozenset(_STOPWORDS.split())
# The head of any English word-frequency list: far commoner than the other stop words.
_COMMONEST = "the of and to a in is it you that he was for on are with as i his they be at this have from or by"
COMMONEST = frozenset(_COMMONEST.split())
# Irregular forms of common English verbs and nouns, so a question's "go" finds the story's "went".
_IRREGULAR = """
go:went,gone make:made take:took,taken come:came see:saw,seen get:got,gotten give:gave,given find:found
think:thought tell:told become:became leave:left feel:felt bring:brought begin:began,begun keep:kept hold:held
write:wrote,written stand:stood hear:heard mean:meant meet:met run:ran pay:paid sit:sat speak:spoke,spoken
lead:led grow:grew,grown lose:lost fall:fell,fallen send:sent build:built understand:understood draw:drew,drawn
break:broke,broken spend:spent drive:drove,driven buy:bought wear:wore,worn choose:chose,chosen seek:sought
throw:threw,thrown catch:caught deal:dealt win:won forget:forgot,forgotten sell:sold fight:fought teach:taught
eat:ate,eaten sing:sang,sung swim:swam,swum fly:flew,flown sleep:slept hide:hid,hidden ride:rode,ridden
shake:shook,shaken wake:woke,woken know:knew,known blow:blew,blown freeze:froze,frozen steal:stole,stolen
hang:hung feed:fed shoot:shot dig:dug strike:struck stick:stuck sink:sank,sunk drink:drank,drunk say:said
lend:lent bend:bent flee:fled sweep:swept weep:wept spin:spun swing:swung ring:rang,rung
child:children man:men woman:women person:people foot:feet tooth:teeth mouse:mice
"""
IRREGULAR = {
    form: base for item in _IRREGULAR.split() for base, forms in [item.split(":")] for form in forms.split(",")
}


# Words that frame a question instead of naming its topic: "what kind of music", "how does she describe
# it", "would he likely go", "did she mention". Dropped from queries only: a stored "kind" still counts,
# and "Is Ana kind?" still asks about kindness.
_QUESTION_FRAME = re.compile(
    r"\b(?:kinds?|sorts?|types?)\s+of\b|\b(?:likely|describ(?:e|es|ed|ing)|mention(?:s|ed|ing)?)\b", re.IGNORECASE
)


def unframed(question: str) -> str:
    """`question` without the words that frame it ("what kind of X" asks about X)."""
    return _QUESTION_FRAME.sub(" ", question)


@lru_cache(maxsize=1 << 16)  # a store has far fewer distinct words than words; stemming each once is enough
def stem(word: str) -> str:
    """Light stemming: irregular forms to their base, then plural, -ing, -ed, -ment, -ion and final e.

    'investing', 'invested' → 'invest'; 'went' → 'go'; 'adoption' → 'adopt'; 'studies' → 'study'.
    """
    word = IRREGULAR.get(word, word)
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith(("ies", "ied")) and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed", "ment"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]  # shipped → shipp → ship
            break
    if word.endswith(("tion", "sion")) and len(word) >= 7:
        word = word[:-3]  # adoption → adopt, discussion → discuss, creation → creat (as create)
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]  # save, saving, saved → sav
    return word


def words(text: str) -> list[str]:
    """The words of `text`, case and accents folded; "won't" is "will not", "didn't" is "did not"."""
    folded = text.casefold()
    if not folded.isascii():  # fold accents (é → e) only where there are any: most text is ASCII
        folded = "".join(ch for ch in unicodedata.normalize("NFKD", folded) if not unicodedata.combining(ch))
    if "n't" in folded or "n’t" in folded:
        folded = _NOT.sub(lambda m: f"{_CONTRACTED.get(m.group(1), m.group(1))} not", folded)
    return _WORD.findall(folded)


def kept(word: str, keep_stopwords: bool = False) -> bool:
    """Whether a word counts: not a single letter (digits do), not a stop word unless asked."""
    return (len(word) > 1 or word.isdigit()) and (keep_stopwords or word not in STOPWORDS)


@lru_cache(maxsize=1 << 16)
def term_of(word: str) -> str:
    """The term a folded word counts as, or "" when it does not count (a stop word, a single letter)."""
    return stem(word) if kept(word) else ""


def terms(text: str, keep_stopwords: bool = False) -> list[str]:
    """Normalised, stemmed words of `text`: case, accents and punctuation folded; stop words dropped."""
    return [stem(w) for w in words(text) if kept(w, keep_stopwords)]
