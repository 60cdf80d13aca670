"""What part of a chat call is kept as a prompt state (claimhop.lm.prompt_states): the text every call of a
signature shares, never the claim."""

from __future__ import annotations

import os

from claimhop.lm.chat_template import chatml
from claimhop.lm.prompt_states import MAX_STATES, PromptStates, checksum, fixed_prefix

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


def test_a_state_file_that_is_not_whole_is_deleted_not_read(tmp_path):
    """llama.cpp aborts the process on a torn state file: only a file whose bytes match the checksum in its name is
    given to it."""
    states = PromptStates(server=None, folder=tmp_path, key="k")
    prefix = fixed_prefix(plan_call("A is B."))
    whole = tmp_path / "whole.tmp"
    whole.write_bytes(b"state" * 1000)
    kept = tmp_path / f"{states.name_of(prefix)}-{checksum(whole)}.bin"
    whole.rename(kept)
    assert states.state_of(prefix) == kept
    kept.write_bytes(b"state" * 10)  # cut short after it was checked: read again, since it changed
    os.utime(kept, (1, 1))
    assert states.state_of(prefix) is None and not kept.exists()


def test_at_most_max_states_are_kept_the_least_recently_used_going_first(tmp_path):
    states = PromptStates(server=None, folder=tmp_path, key="k")
    for i in range(MAX_STATES + 3):
        path = tmp_path / f"{i:032x}-0000000000000000.bin"
        path.write_bytes(b"x")
        os.utime(path, (1000 + i, 1000 + i))
    os.utime(tmp_path / f"{0:032x}-0000000000000000.bin")  # the oldest, just restored: recently used
    stale = tmp_path / "tmp-1-abc.bin"
    stale.write_bytes(b"x")
    os.utime(stale, (1, 1))
    states._prune()
    left = {p.name for p in tmp_path.glob("*.bin")}
    assert len(left) == MAX_STATES and f"{0:032x}-0000000000000000.bin" in left
    assert f"{1:032x}-0000000000000000.bin" not in left and "tmp-1-abc.bin" not in left
