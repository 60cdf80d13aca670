"""claimhop on a model behind an OpenAI-compatible server, as users of Ollama, vLLM or a hosted API run it:
llama.cpp's own HTTP server over the bundled model (`claimhop serve-model`), on loopback with a key, and the
whole graph through `--model openai/claimhop-local` with the address and key only in the environment. The server
runs two parallel slots (`--parallel 2`), and two checks sent at once are answered in both. On a served model the
verdict is the model's own of three labels: a claim a passage plainly contradicts is answered CONTRADICTED."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import urllib.request

from answers import assert_a_consistent_answer
from served_model import status

from claimhop.program.verify.served import NO_LOGPROBS_CONFIDENCE

CLAIM = "Steve Augeri and the lead singer of The Runaways were both American musicians."


def test_the_model_server_refuses_a_request_without_its_key(model_server):
    base, _ = model_server
    assert status(f"{base}/models", None) == 401


def test_the_whole_graph_runs_on_the_served_model_and_the_answer_names_it(model_server, tmp_path):
    base, key = model_server
    env = {**os.environ, "OPENAI_API_BASE": base, "OPENAI_API_KEY": key, "DSPY_CACHEDIR": str(tmp_path / "dspy"),
           "CLAIMHOP_HOME": os.environ.get("CLAIMHOP_HOME", os.path.expanduser("~/.cache/claimhop"))}
    result = subprocess.run([sys.executable, "-m", "claimhop.cli.main", "check", "--json", "--quiet",
                             "--model", "openai/claimhop-local", CLAIM], env=env, capture_output=True, text=True,
                            timeout=900, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    out = json.loads(result.stdout)
    assert out["model"] == "openai/claimhop-local"
    assert out["answer"].splitlines()[-1] == "Model: openai/claimhop-local"
    assert_a_consistent_answer(out)
    assert out["local_model"]["calls"] == 0  # nothing ran in-process: every model call went to the server
    # the served verdict is the most probable of three labels read from the server's logprobs: the right one here, at
    # least a third, and not the fixed confidence a reply without logprobs gets
    assert out["verdict"] == "SUPPORTED"
    assert 1 / 3 <= out["confidence"] < 1.0 and out["confidence"] != NO_LOGPROBS_CONFIDENCE
    assert out["facts"] and all(fact["refs"] for fact in out["facts"])  # every fact quoted from the passages read


def check_on_server(base: str, key: str, claim: str, folder) -> dict:
    env = {**os.environ, "OPENAI_API_BASE": base, "OPENAI_API_KEY": key, "DSPY_CACHEDIR": str(folder / "dspy"),
           "CLAIMHOP_HOME": os.environ.get("CLAIMHOP_HOME", os.path.expanduser("~/.cache/claimhop"))}
    folder.mkdir(exist_ok=True)
    result = subprocess.run([sys.executable, "-m", "claimhop.cli.main", "check", "--json", "--quiet",
                             "--model", "openai/claimhop-local", "--set", "max_iterations=1", claim], env=env,
                            capture_output=True, text=True, timeout=900, cwd=folder)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout)


def test_two_checks_at_once_use_both_slots_of_one_server(model_server, tmp_path):
    base, key = model_server
    claims = {"Steve Augeri": "Steve Augeri is an American musician.",
              "Cherie Currie": "Cherie Currie was the lead singer of The Runaways."}
    results: dict[str, dict] = {}
    runs = [threading.Thread(target=lambda n=name, c=claim: results.__setitem__(n, check_on_server(
        base, key, c, tmp_path / n.replace(" ", "-")))) for name, claim in claims.items()]
    for run in runs:
        run.start()
    for run in runs:
        run.join()
    assert set(results) == set(claims), "a check failed (its error is printed above)"
    for name, result in results.items():  # both answers right: the claim's own article read, a verdict given
        assert name in {d["title"] for d in result["selected"]}
        assert_a_consistent_answer(result)
    request = urllib.request.Request(base.removesuffix("/v1") + "/slots", headers={"Authorization": f"Bearer {key}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        slots = json.loads(response.read())
    assert len(slots) == 2 and all("id_task" in slot for slot in slots)  # each slot has answered a request


# A tiny collection of invented documents (no real data): the drug's own file says it lowers blood pressure
INVENTED = {
    "cavotrin.md": "# Cavotrin\n\nCavotrin is an experimental drug studied by the Harlow Institute. In a 2019 trial of "
                   "400 adults, Cavotrin lowered blood pressure by an average of 11 mmHg compared with placebo.\n",
    "harlow-institute.md": "# Harlow Institute\n\nThe Harlow Institute is a private medical research centre in the "
                           "town of Malbrek. It was founded in 1988 and runs clinical trials of new heart and kidney "
                           "drugs.\n",
    "lake-varnholm.md": "# Lake Varnholm\n\nLake Varnholm is a freshwater lake in the province of Eskavia. It has a "
                        "maximum depth of 42 metres and covers an area of 18 square kilometres.\n",
    "orlen-bridge.md": "# Orlen Bridge\n\nThe Orlen Bridge is a steel arch bridge over the river Tessa in Malbrek. "
                       "It opened to traffic in 1962 and carries four lanes of road traffic.\n",
}
CONTRADICTED_CLAIM = "Cavotrin raised blood pressure by an average of 11 mmHg in a 2019 trial."


def test_a_served_model_answers_contradicted_when_a_passage_says_the_opposite(model_server, tmp_path):
    """The served path's own label, not the quote rule: the verdict's reason is the one a served CONTRADICTED gives
    (the quote rule, which could also catch lowered/raises, says "says the opposite of the claim")."""
    base, key = model_server
    folder, index_dir = tmp_path / "docs", tmp_path / "index"
    folder.mkdir()
    for name, text in INVENTED.items():
        (folder / name).write_text(text, encoding="utf-8")
    env = {**os.environ, "OPENAI_API_BASE": base, "OPENAI_API_KEY": key, "DSPY_CACHEDIR": str(tmp_path / "dspy"),
           "CLAIMHOP_HOME": os.environ.get("CLAIMHOP_HOME", os.path.expanduser("~/.cache/claimhop"))}
    indexed = subprocess.run([sys.executable, "-m", "claimhop.cli.main", "index", str(folder), "--index-dir",
                              str(index_dir)], env=env, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert indexed.returncode == 0, indexed.stderr[-3000:]
    result = subprocess.run([sys.executable, "-m", "claimhop.cli.main", "check", "--json", "--quiet", "--model",
                             "openai/claimhop-local", "--corpus", str(folder), "--set", f"index_dir={index_dir}",
                             "--set", "max_iterations=1", CONTRADICTED_CLAIM], env=env, capture_output=True,
                            text=True, timeout=1800, cwd=tmp_path)  # ~2 min idle; a loaded machine took > 15
    assert result.returncode == 0, result.stderr[-3000:]
    out = json.loads(result.stdout)
    assert "Cavotrin" in {d["title"] for d in out["selected"]}
    assert out["verdict"] == "CONTRADICTED", (out.get("verdict_reason"), out["answer"])
    assert out["verdict_reason"].endswith("say something else than the claim")  # the model's label decided
    assert 1 / 3 < out["confidence"] < 1.0
    assert out["local_model"]["calls"] == 0
    assert_a_consistent_answer(out)
