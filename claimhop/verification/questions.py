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
from dataclasses import dataclass

from claimhop.entities.values import FactParse, Value
from claimhop.verification.coverage import folded, mentioned

NOT_STATED = "not stated"
LETTERS = "ABCDEFGH"
WH = {"time": "When", "number": "What number", "nationality": "What nationality", "place": "Where",
      "name": "Who or what"}
NUMBER_WORDS = {w: str(i) for i, w in enumerate(
    ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"])}


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


COMPARING = re.compile(r"\b(than|before|after|earlier|later|older|younger|longer|shorter|same)\b", re.IGNORECASE)


def question_for(fact: str, parse: FactParse) -> Question:
    """The value question when the fact has a value outside its subject, else the yes/no question. A comparison
    ("X is younger than Y", "released before Y") gets the yes/no question too: its answer is no span of the
    evidence, and blanking "Y" would ask for the wrong thing."""
    if not parse.values or COMPARING.search(fact):
        return yes_no_question(fact)
    return value_question(fact, parse.values[0])


def _digits(text: str) -> set[str]:
    words = [NUMBER_WORDS.get(w, w) for w in re.findall(r"[a-z]+|\d+", text.casefold().replace(",", ""))]
    return {w for w in words if w.isdigit()}


def same_value(a: str, b: str) -> bool:
    """Whether two answers say the same: numbers and dates by their numbers ("1970" is "July 1970"), anything
    else by a fuzzy match of one inside the other, accents folded ("Currie" is "Cherie Currie")."""
    da, db = _digits(a), _digits(b)
    if da or db:
        return bool(da and db) and (da <= db or db <= da)
    fa, fb = folded(a), folded(b)
    if not fa or not fb:
        return False
    short, long = sorted((fa, fb), key=len)
    return len(short) >= 4 and mentioned(short, long) if short != long else True


def options_for(question: Question, found: list[list[Value]], asked_text: str, limit: int = 4) -> list[str]:
    """The answers the model picks from: the fact's own, each other value of the same kind that the evidence
    sentences state (at most `limit`, in the evidence's order, none the question itself mentions), and
    "not stated"; alphabetical, so the fact's own answer has no fixed place."""
    if question.kind == "yes_no":
        return ["no", NOT_STATED, "yes"]
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
