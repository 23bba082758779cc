"""A result file that reproduces the run: package versions, the model's family and the hash of its
configuration's contents, local weights' hash, the pilot's revision under any install, the command
line, and the CPU's model name."""

from __future__ import annotations

import hashlib
import json
import shlex
import subprocess
from importlib import metadata
from pathlib import Path

import pytest

from pilot import cli, environment, model_source
from pilot.config import ModelConfig, PilotConfig

from .test_failures import TINY_FLAGS

CONFIGS = Path(__file__).parents[1] / "fixtures" / "hf-configs"


@pytest.mark.slow  # real training
def test_the_file_records_versions_cpu_and_the_exact_command(tmp_path, validate):
    out = tmp_path / "r.json"
    args = ["run", *TINY_FLAGS, "--no-restore-check", "--label", "a 'quoted' label", "-o", str(out)]
    assert cli.main(args) == 0
    data = validate(json.loads(out.read_text(encoding="utf-8")))
    assert data["command"] == shlex.join(["gpu-pilot", *args])
    env = data["environment"]
    for key, name in environment.PACKAGES.items():
        try:
            expected = metadata.version(name)
        except metadata.PackageNotFoundError:
            expected = None
        assert env["packages"][key] == expected
    if Path("/proc/cpuinfo").exists():
        names = [
            ln.split(":", 1)[1].strip()
            for ln in Path("/proc/cpuinfo").read_text().splitlines()
            if ln.startswith("model name")
        ]
        assert env["cpu_model"] == names[0] == env["device_name"]
    assert data["model"]["family"] == "builtin" and data["model"]["weights_sha256"] is None


def _variant(tmp_path: Path, **change) -> str:
    spec = json.loads((CONFIGS / "llama-tiny.json").read_text(encoding="utf-8"))
    path = tmp_path / f"config-{len(list(tmp_path.iterdir()))}.json"
    path.write_text(json.dumps({**spec, **change}, indent=4), encoding="utf-8")
    return str(path)


def test_the_config_hash_follows_the_contents_not_only_the_shape(tmp_path):
    """Before: a config.json differing in rope_theta (same shape) gave the same hash, and the file named
    no family for --model-config."""
    same, reordered, other = (_variant(tmp_path), _variant(tmp_path), _variant(tmp_path, rope_theta=1234.0))
    idents = [model_source.identity(ModelConfig(config_file=p)) for p in (same, reordered, other)]
    assert [i.family for i in idents] == ["llama"] * 3
    assert idents[0].config_sha256 == idents[1].config_sha256 != idents[2].config_sha256
    cfg = PilotConfig(model={"config_file": same})
    assert cfg.model_hash(idents[0].config_sha256) != cfg.model_hash(idents[2].config_sha256)
    preset = model_source.identity(ModelConfig(source="qwen2.5-0.5b"))
    assert preset.family == "qwen2" and preset.weights_sha256 is None


def test_local_weights_are_hashed_streamed_with_progress(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text((CONFIGS / "llama-tiny.json").read_text(encoding="utf-8"), encoding="utf-8")
    shards = {"model-00001-of-00002.safetensors": b"a" * 3000, "model-00002-of-00002.safetensors": b"b" * 10}
    for name, content in shards.items():
        (folder / name).write_bytes(content)
    (folder / "README.md").write_text("not weights", encoding="utf-8")
    monkeypatch.setattr(model_source, "HASH_CHUNK", 1024)
    monkeypatch.setattr(model_source, "PROGRESS_FROM_BYTES", 0)
    ident = model_source.identity(ModelConfig(source=str(folder)), show=True)
    expected = hashlib.sha256(
        "".join(f"{n}\0{hashlib.sha256(c).hexdigest()}\n" for n, c in sorted(shards.items())).encode()
    ).hexdigest()
    assert (ident.family, ident.weights_sha256, ident.weights_bytes) == ("llama", expected, 3010)
    assert "hashing weights" in capsys.readouterr().err
    (folder / "model-00002-of-00002.safetensors").write_bytes(b"c" * 10)
    assert model_source.identity(ModelConfig(source=str(folder))).weights_sha256 != expected


class _Distribution:
    def __init__(self, direct_url: dict | None):
        self.direct_url = direct_url

    def read_text(self, name):
        assert name == "direct_url.json"
        return None if self.direct_url is None else json.dumps(self.direct_url)


def _git_checkout(folder: Path) -> str:
    folder.mkdir()
    run = lambda *a: subprocess.run(["git", *a], cwd=folder, check=True, capture_output=True, text=True)  # noqa: E731
    run("init", "-q")
    (folder / "f").write_text("x", encoding="utf-8")
    run("add", "f")
    run("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "x")
    return run("rev-parse", "HEAD").stdout.strip()


@pytest.mark.parametrize("origin", ["local checkout", "vcs url", "unknown"])
def test_the_revision_under_a_non_editable_install(tmp_path, monkeypatch, origin):
    """Before: `pip install .` (the documented install) copies the package without .git: null revision.
    Now pip's direct_url.json names the checkout (or the VCS commit) it was installed from."""
    installed = tmp_path / "site-packages" / "pilot"
    installed.mkdir(parents=True)
    monkeypatch.setattr(environment, "__file__", str(installed / "environment.py"))
    commit = _git_checkout(tmp_path / "checkout")
    direct_url = {
        "local checkout": {"url": (tmp_path / "checkout").as_uri(), "dir_info": {}},
        "vcs url": {"url": "https://example.invalid/guide.git", "vcs_info": {"vcs": "git", "commit_id": "a" * 40}},
        "unknown": None,
    }[origin]
    monkeypatch.setattr(environment.metadata, "distribution", lambda name: _Distribution(direct_url))
    expected = {"local checkout": commit, "vcs url": "a" * 40, "unknown": None}[origin]
    assert environment.git_revision() == expected
