"""The Anthropic Skills API route of the emulator: ``POST /v1/skills``.

The SDK's ``client.beta.skills.create(files=[...])`` sends a multipart form with one
``files[]`` field per file, each named ``<skill directory>/<path>``. The emulator keeps the
files of each created skill on `skills` (skill id -> list of
``(name, bytes)``), so a test asserts what was uploaded, and answers with a ``skill``
object.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse, Response

from doc_processing_toolkit.testing.emulator.common import DialectRoute, EmulatorCall, new_id

__all__ = ["SKILLS_ROUTES", "handle_create_skill"]

_CREATED = "2025-10-02T00:00:00Z"


async def handle_create_skill(call: EmulatorCall) -> Response:
    """POST /v1/skills (multipart ``files``): a custom skill, recorded."""
    form = await call.request.form()
    files: list[tuple[str, bytes]] = []
    for upload in [*form.getlist("files[]"), *form.getlist("files")]:
        if isinstance(upload, str):
            continue
        files.append((str(upload.filename), await upload.read()))
    if not any(name.count("/") == 1 and name.endswith("/SKILL.md") for name, _ in files):
        body: dict[str, Any] = {
            "type": "error",
            "error": {
                "type": "invalid_request_error",
                "message": "a skill needs SKILL.md at the root of its top-level directory",
            },
        }
        return JSONResponse(body, status_code=400)
    skill_id = new_id("skill_")
    call.state.skills[skill_id] = files
    return JSONResponse(
        {
            "id": skill_id,
            "type": "skill",
            "created_at": _CREATED,
            "updated_at": _CREATED,
            "display_name": files[0][0].split("/", 1)[0],
            "latest_version_id": new_id("skillver_"),
            "source": "custom",
        }
    )


SKILLS_ROUTES: dict[str, DialectRoute] = {
    "/v1/skills": DialectRoute("anthropic_skills", handle_create_skill),
}
"""The Skills API route (listed in `DIALECT_ROUTES`)."""
