"""What part of a chat call is kept as a prompt state (claimhop.lm.prompt_states): the text every call of a
signature shares, never the claim."""

from __future__ import annotations

from claimhop.lm.chat_template import chatml
from claimhop.lm.prompt_states import PromptStates, fixed_prefix

SYSTEM = "Split the claim into its atomic facts and name the entities to look up. " * 8


def plan_call(claim: str, system: str = SYSTEM) -> list[dict]:
    return [{"role": "system", "content": system},
            {"role": "user", "content": "[[ ## claim ## ]]\nSteve Augeri was born in Brooklyn."},
            {"role": "assistant", "content": '{"facts":["Steve Augeri was born in Brooklyn."]}'},
            {"role": "user", "content": f"[[ ## claim ## ]]\n{claim}"}]


def test_the_fixed_part_is_the_prompt_up_to_the_last_user_turn_and_holds_no_claim():
    messages = plan_call("The Runaways' lead singer was American.")
    prefix = fixed_prefix(messages)
    assert prefix is not None and chatml(messages).startswith(prefix)
    assert prefix.endswith("<|im_start|>user\n") and "Runaways" not in prefix
    assert "Steve Augeri was born in Brooklyn" in prefix  # the worked example is part of what is kept


def test_calls_that_differ_only_in_the_claim_share_one_state_and_other_instructions_do_not():
    one, other = fixed_prefix(plan_call("A is B.")), fixed_prefix(plan_call("C is D."))
    assert PromptStates.name_of(one) == PromptStates.name_of(other)
    changed = fixed_prefix(plan_call("A is B.", system=SYSTEM + "Reply in JSON."))
    assert PromptStates.name_of(changed) != PromptStates.name_of(one)


def test_a_call_with_nothing_fixed_worth_keeping_keeps_nothing():
    assert fixed_prefix([{"role": "user", "content": "Is Paris in France?"}]) is None
    assert fixed_prefix([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]) is None
    assert fixed_prefix(plan_call("A is B.")[:3]) is None  # ends with the model's turn: no user turn to start
    assert fixed_prefix(plan_call("A is B.")[1:]) is None  # no system message: llama.cpp's template adds its own
