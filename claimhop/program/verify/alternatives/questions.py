"""The QA verifier's questions, built from a fact without a model call, and their answer options.

A fact's question asks for its value with the value blanked out ("What nationality? Cherie Currie is an ___
musician."); the options are the fact's own value, the values of the same kind the evidence sentences state
(other dates, other nationalities, other names) and "not stated". A small model picks among a few spans of the
evidence far more reliably than it judges entailment, and the answer says which value the evidence gives,
so a changed date or name shows as the other option. A fact with no such value gets a yes/no question. A fact
whose subject is a description ("The Runaways' lead singer ...") is asked first who that is, among the names the
evidence gives; the answer takes the description's place, as the first hop of a program would.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from claimhop.entities.values import FactParse, Value
from claimhop.program.outputs import NOT_STATED
from claimhop.program.verify.coverage import folded, mentioned

LETTERS = "ABCDEFGH"
WH = {"time": "When", "number": "What number", "nationality": "What nationality", "place": "Where",
      "name": "Who or what"}
_UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
          "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"]
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"]
# each word that names a number, a month or a scale, as the token it is compared by
NUMBER_WORDS = {**{w: str(i) for i, w in enumerate(_UNITS)}, **{w: str(20 + 10 * i) for i, w in enumerate(_TENS)},
                **{w: str(i + 1) for i, w in enumerate(_ORDINALS)}, **{w: f"month{i + 1}" for i, w in enumerate(_MONTHS)},
                "hundred": "e2", "thousand": "e3", "million": "e6", "billion": "e9"}
MAX_OTHERS = len(LETTERS) - 2  # the fact's own answer and "not stated" take two letters
# the shorter of two answers, of fewer characters, must equal the longer to be the same (a fuzzy match inside it
# would find "Li" or "Ra" anywhere); set by hand with the QA verifier (5035bf7), not tuned
MIN_INSIDE_CHARS = 4
@dataclass(frozen=True)
class Question:
    kind: str  # "value", "yes_no" or "who" (who a description is)
    text: str  # as shown to the model and the user
    claimed: str  # the fact's answer: its value, "yes", or "" for "who"
    value_kind: str = ""  # for "value": a key of claimhop.entities.values.KINDS
    value_label: str = ""  # for a name: spaCy's label, so a film's alternatives are films, not actors


def value_question(fact: str, value: Value) -> Question:
    cloze = f"{fact[: value.start]}___{fact[value.end:]}"
    return Question("value", f"{WH[value.kind]}? {cloze}", value.text, value.kind, value.label)


def yes_no_question(fact: str) -> Question:
    return Question("yes_no", f"Is it true that {fact.rstrip('. ')}?", "yes")


def who_question(description: str) -> Question:
    return Question("who", f'Who or what is "{description}"?', "")


# a comparison, a negation or an approximate amount: the fact's value is not the answer to a "which" question
NOT_A_SPAN = re.compile(r"\b(than|before|after|earlier|later|older|younger|longer|shorter|same|not|never)\b|n't\b|"
                        r"\b(at least|at most|about|approximately|nearly|almost|over|under)\s+\d", re.IGNORECASE)


def question_for(fact: str, parse: FactParse) -> Question:
    """The value question when the fact has a value outside its subject, else the yes/no question. A comparison
    ("X is younger than Y", "released before Y"), a negation ("X is not British") or an approximate amount
    ("over 2 million") gets the yes/no question too: blanking the value would ask for the wrong thing."""
    if not parse.values or NOT_A_SPAN.search(fact):
        return yes_no_question(fact)
    return value_question(fact, parse.values[0])


def number_tokens(text: str) -> list[str]:
    """The numbers, months and scale words of an answer, in order: "July 4, 1970" -> month7, 4, 1970;
    "2 million" -> 2, e6; "1st" -> 1."""
    tokens = re.findall(r"\d+(?:\.\d+)?|[a-z]+", text.casefold().replace(",", ""))
    out = []
    for token in tokens:
        token = re.sub(r"^(\d+)(st|nd|rd|th|s)$", r"\1", token)
        if token[:1].isdigit():
            out.append(token)
        elif token in NUMBER_WORDS:
            out.append(NUMBER_WORDS[token])
    return out


def same_value(a: str, b: str) -> bool:
    """Whether two answers say the same: numbers, dates and amounts by their numbers, months and scale words,
    one's all within the other's ("1970" is "July 1970", not "1971"; "July 4" is not "June 4"; "2 million" is
    not "2 billion"), anything else by a fuzzy match of one inside the other, accents folded ("Currie" is
    "Cherie Currie")."""
    na, nb = Counter(number_tokens(a)), Counter(number_tokens(b))
    if na or nb:
        return bool(na and nb) and (na <= nb or nb <= na)
    fa, fb = folded(a), folded(b)
    if not fa or not fb:
        return False
    short, long = sorted((fa, fb), key=len)
    return len(short) >= MIN_INSIDE_CHARS and mentioned(short, long) if short != long else True


def options_for(question: Question, found: list[list[Value]], asked_text: str, limit: int = 4) -> list[str]:
    """The answers the model picks from: the fact's own, each other value of the same kind that the evidence
    sentences state (at most `limit`, in the evidence's order, none the question itself mentions), and
    "not stated"; alphabetical, so the fact's own answer has no fixed place."""
    if question.kind == "yes_no":
        return ["no", NOT_STATED, "yes"]
    limit = min(limit, MAX_OTHERS)
    kinds = {question.value_kind} if question.kind == "value" else {"name", "place"}
    chosen = [question.claimed] if question.claimed else []
    asked = folded(asked_text.replace("___", " "))
    for values in found:
        for value in values:
            if len(chosen) - bool(question.claimed) >= limit:
                break
            if value.kind in kinds and alike(question, value) and not mentioned(value.text, asked) and not any(
                    same_value(value.text, c) for c in chosen):
                chosen.append(value.text)
    return sorted(chosen, key=str.casefold) + [NOT_STATED]


def alike(question: Question, value: Value) -> bool:
    """Whether `value` can answer the question: of its kind and, for a name, of its label (a title NER missed,
    label "", is matched by works and other such titles)."""
    if question.kind != "value" or question.value_kind != "name":
        return True
    titles = {"", "WORK_OF_ART", "PRODUCT", "EVENT"}
    return value.label == question.value_label or {value.label, question.value_label} <= titles


def lettered(options: list[str]) -> list[str]:
    return [f"{LETTERS[i]}) {option}" for i, option in enumerate(options)]
