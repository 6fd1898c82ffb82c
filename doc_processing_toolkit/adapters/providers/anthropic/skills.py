"""Anthropic Agent Skills: the ``skills`` provider keyword, as the Messages API takes it.

Accepted forms (``Agent(..., skills=...)``):

* a built-in name - ``"xlsx"``, ``"pptx"``, ``"docx"`` or ``"pdf"``;
* a custom skill directory - a path to a directory holding ``SKILL.md`` (a directory
  without it is a ValueError naming it);
* the advanced dict - ``{"type": "anthropic" | "custom", "skill_id": ..., "version": ...}``;
* a list mixing any of these.

On the wire the skills ride in the ``container`` parameter (``{"id"?: ..., "skills":
[{"type", "skill_id", "version"}]}``) next to the ``code_execution_20250825`` tool (added
when the request has none), with the ``code-execution-2025-08-25``, ``skills-2025-10-02``
and ``files-api-2025-04-14`` betas. A custom directory is uploaded once per process and
endpoint (``POST /v1/skills``, keyed by the SHA-256 of its files), and the returned id is
sent as a ``custom`` skill. Uploaded skills are kept, so a container reused on a later run
(``anthropic_container_id``) can still load them.
"""

from __future__ import annotations

import hashlib
import mimetypes
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from doc_processing_toolkit.domain.errors import ConfigurationError

__all__ = [
    "BUILT_IN_SKILLS",
    "SKILLS_BETAS",
    "SkillRef",
    "apply_skills",
    "normalize_skills",
    "resolve_skills",
    "skill_directory_files",
]

BUILT_IN_SKILLS = ("xlsx", "pptx", "docx", "pdf")
"""The Anthropic-managed skills a bare name selects."""
SKILLS_BETAS = ("code-execution-2025-08-25", "skills-2025-10-02", "files-api-2025-04-14")
"""The ``anthropic-beta`` values a request with skills sends."""
SKILLS_UPLOAD_BETA = "skills-2025-10-02"
"""The beta the skill upload (``POST /v1/skills``) sends."""
CODE_EXECUTION_TOOL = {"type": "code_execution_20250825", "name": "code_execution"}
_SKILL_TYPES = ("anthropic", "custom")
_MAX_SKILL_BYTES = 30 * 1024 * 1024
"""The largest custom skill directory uploaded (the API's limit is 30 MB)."""

_UPLOADED: dict[tuple[str, str], str] = {}
"""(endpoint, sha256 of a skill directory's files) -> skill id, for this process."""


@dataclass(frozen=True, slots=True)
class SkillRef:
    """One requested skill: a wire entry, or a directory still to upload."""

    type: str
    """``anthropic`` or ``custom``."""
    skill_id: str | None = None
    """The skill's id (None for a directory not uploaded yet)."""
    version: str = "latest"
    directory: Path | None = None
    """The custom skill directory to upload (``skill_id`` is None then)."""

    def wire(self) -> dict[str, Any]:
        """The ``container.skills`` entry."""
        if self.skill_id is None:
            raise ConfigurationError(f"skills: the directory {self.directory} was not uploaded")
        return {"type": self.type, "skill_id": self.skill_id, "version": self.version}


def _one(value: Any) -> SkillRef:
    if isinstance(value, Mapping):
        skill_type = value.get("type", "anthropic")
        skill_id = value.get("skill_id")
        if skill_type not in _SKILL_TYPES:
            raise ConfigurationError(
                f"skills: 'type' must be 'anthropic' or 'custom', got {skill_type!r} in {value!r}"
            )
        if not isinstance(skill_id, str) or not skill_id.strip():
            raise ConfigurationError(f"skills: a dict needs a non-empty 'skill_id', got {value!r}")
        extra = sorted(set(value) - {"type", "skill_id", "version"})
        if extra:
            raise ConfigurationError(f"skills: unknown key(s) {', '.join(extra)} in {value!r}")
        version = value.get("version", "latest")
        return SkillRef(str(skill_type), skill_id.strip(), str(version))
    if isinstance(value, Path | str):
        text = str(value)
        if text in BUILT_IN_SKILLS:
            return SkillRef("anthropic", text)
        path = Path(text).expanduser()
        if path.is_dir():
            if not (path / "SKILL.md").is_file():
                raise ConfigurationError(f"skills: the directory {text!r} has no SKILL.md")
            return SkillRef("custom", directory=path.resolve())
        raise ConfigurationError(
            f"skills: {text!r} is neither a built-in skill ({', '.join(BUILT_IN_SKILLS)}) "
            "nor a directory containing SKILL.md"
        )
    raise ConfigurationError(
        "skills: each entry must be a built-in name, a skill directory or a dict, got "
        f"{type(value).__name__}"
    )


def normalize_skills(value: Any) -> tuple[SkillRef, ...]:
    """The skills ``value`` asks for, validated (empty for None).

    Raises:
        ConfigurationError: an unknown name, a directory without SKILL.md, a malformed dict.
    """
    if value is None:
        return ()
    if isinstance(value, Sequence) and not isinstance(value, str):
        return tuple(_one(v) for v in value)
    return (_one(value),)


def skill_directory_files(directory: Path) -> list[tuple[str, bytes, str]]:
    """``(name, bytes, mime)`` for every file under ``directory``, names prefixed with its
    own name (the API wants one top-level directory with SKILL.md at its root).

    Raises:
        ConfigurationError: the files exceed the upload limit.
    """
    files: list[tuple[str, bytes, str]] = []
    total = 0
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        relative = path.relative_to(directory)
        if any(part.startswith(".") for part in relative.parts):
            continue  # .git, .DS_Store and the like are not part of a skill
        data = path.read_bytes()
        total += len(data)
        if total > _MAX_SKILL_BYTES:
            raise ConfigurationError(
                f"skills: the directory {str(directory)!r} is larger than 30 MB"
            )
        mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        files.append((f"{directory.name}/{relative.as_posix()}", data, mime))
    return files


def _digest(files: list[tuple[str, bytes, str]]) -> str:
    digest = hashlib.sha256()
    for name, data, _ in files:
        digest.update(name.encode())
        digest.update(hashlib.sha256(data).digest())
    return digest.hexdigest()


async def resolve_skills(
    refs: Sequence[SkillRef], upload: Any, endpoint: str
) -> tuple[list[dict[str, Any]], list[str]]:
    """The ``container.skills`` entries for ``refs`` and the ids they name.

    Args:
        refs: From `normalize_skills`.
        upload: ``await upload(files) -> skill_id`` uploads one directory's files.
        endpoint: Keys the per-process upload cache (one upload per directory content).
    """
    entries: list[dict[str, Any]] = []
    for ref in refs:
        if ref.directory is not None and ref.skill_id is None:
            files = skill_directory_files(ref.directory)
            key = (endpoint, _digest(files))
            skill_id = _UPLOADED.get(key)
            if skill_id is None:
                skill_id = str(await upload(files))
                _UPLOADED[key] = skill_id
            ref = SkillRef("custom", skill_id, ref.version)
        entries.append(ref.wire())
    return entries, [str(e["skill_id"]) for e in entries]


def apply_skills(params: dict[str, Any], entries: Any) -> list[str]:
    """Put resolved skill ``entries`` into ``params``; the betas to send.

    ``params["container"]`` (an id string from container reuse, a dict, or absent) becomes
    ``{"id"?: ..., "skills": entries}``; the code-execution tool is added when missing.

    Raises:
        ConfigurationError: an entry is still a directory (not uploaded) or malformed.
    """
    skills = [ref.wire() for ref in normalize_skills(entries)]
    if not skills:
        return []
    container = params.get("container")
    if isinstance(container, str):
        container = {"id": container}
    elif not isinstance(container, Mapping):
        container = {}
    params["container"] = {**container, "skills": skills}
    tools = list(params.get("tools") or [])
    if not any(str(t.get("type", "")).startswith("code_execution") for t in tools):
        tools.append(dict(CODE_EXECUTION_TOOL))
    params["tools"] = tools
    return list(SKILLS_BETAS)
