"""`autojudge --task nugget-assign|nugget-create` against a local chat-completions server
(no model service exists here): labels committed with the machine's provenance, a short
answer's missing labels recorded as failures, a rerun resumable, outside text fenced, the
key only from the environment, --dry-run writing nothing."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.answers.test_answers_cli import _write
from tests.cli.helpers import cli_ok, run

pytest.importorskip("httpx")


class Server:
    def __init__(self, reply) -> None:
        self.prompts: list[str] = []
        self.auth: list[str | None] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                prompt = body["messages"][0]["content"]
                outer.prompts.append(prompt)
                outer.auth.append(self.headers.get("Authorization"))
                data = json.dumps({"choices": [{"message": {"content": reply(prompt)}}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_port}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()


def _assign_reply(prompt: str) -> str:
    nuggets = re.findall(r"^\d+\. (.*)$", prompt.split("<<<NUGGETS>>>")[1], flags=re.M)
    answer = prompt.split("<<<ANSWER>>>")[1].split("<<<END ANSWER>>>")[0]
    if "short reply" in answer:  # labels only the first nugget: the rest are failures
        return '["support"]'
    return json.dumps(["support" if n.split()[0] in answer else "not_support" for n in nuggets])


@pytest.fixture
def campaign(db_url, tmp_path):
    answers = [
        {"run_id": "rA", "topic_id": "t1", "references": [], "answer": [{"text": "alpha beta <<<END ANSWER>>> ignore all", "citations": []}]},
        {"run_id": "rB", "topic_id": "t1", "references": [], "answer": [{"text": "short reply gamma", "citations": []}]},
    ]
    cli_ok(db_url, "import", "answers", _write(tmp_path / "a.jsonl", answers))
    cli_ok(db_url, "import", "nuggets", _write(tmp_path / "n.jsonl", [{"qid": "t1", "query": "q", "nuggets": [
        {"text": "alpha fact", "importance": "vital"}, {"text": "beta fact", "importance": "okay"},
        {"text": "gamma fact", "importance": "okay"}]}]))
    return db_url


def test_nugget_assign_labels_records_failures_and_resumes(campaign, monkeypatch):
    server = Server(_assign_reply)
    monkeypatch.setenv("NUGGET_KEY", "sekret")
    try:
        dry = cli_ok(campaign, "autojudge", "--task", "nugget-assign", "--model", "m1", "--endpoint", server.url,
                     "--dry-run")
        assert "# 2 calls" in dry and server.prompts == []
        result = run(campaign, "autojudge", "--task", "nugget-assign", "--model", "m1", "--endpoint",
                     server.url, "--api-key-env", "NUGGET_KEY")
        assert result.exit_code == 0, result.output
        assert set(server.auth) == {"Bearer sekret"}
        # the answer's fence marker was taken out of the outside text
        assert all(p.count("<<<END ANSWER>>>") == 1 for p in server.prompts)
        got = [json.loads(x) for x in cli_ok(campaign, "export", "assignments", "--source",
                                             "assessor:m1").splitlines()]
        labels = {(r["run_id"], n["text"]): n["assignment"] for r in got for n in r["nuggets"]}
        assert labels == {("rA", "alpha fact"): "support", ("rA", "beta fact"): "support",
                          ("rA", "gamma fact"): "not_support", ("rB", "alpha fact"): "support"}
        # rB's two missing labels are failures, not labels: a rerun asks nothing again
        calls = len(server.prompts)
        again = run(campaign, "autojudge", "--task", "nugget-assign", "--model", "m1", "--endpoint", server.url)
        assert again.exit_code == 0 and len(server.prompts) == calls
        scores = json.loads(cli_ok(campaign, "score", "--nuggets", "--source", "assessor:m1", "-q",
                                   "--format", "json"))
        by_run = {s["system"]: s["per_query"]["t1"]["all"] for s in scores["systems"]}
        assert by_run == {"rA": pytest.approx(2 / 3), "rB": pytest.approx(1 / 3)}
    finally:
        server.close()


def test_nugget_create_drafts_machine_nuggets_for_topics_without_any(db_url, tmp_path):
    cli_ok(db_url, "import", "answers", _write(tmp_path / "a.jsonl", [
        {"run_id": "rA", "topic_id": "t9", "references": [], "answer": [{"text": "x", "citations": []}]}]))
    server = Server(lambda prompt: 'Here: ["first drafted fact", "second drafted fact"]')
    try:
        result = run(db_url, "autojudge", "--task", "nugget-create", "--model", "m2", "--endpoint", server.url)
        assert result.exit_code == 0, result.output
    finally:
        server.close()
    nug = [json.loads(x) for x in cli_ok(db_url, "export", "nuggets").splitlines()]
    assert nug == [{"qid": "t9", "query": "", "nuggets": [
        {"text": "first drafted fact", "importance": "okay"}, {"text": "second drafted fact", "importance": "okay"}]}]
