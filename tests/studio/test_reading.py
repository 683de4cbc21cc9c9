"""The Studio's tolerant readers, fed the shapes another legal implementation
of the service may send (outlines, events, pending requests, results)."""

from __future__ import annotations

import pytest

from studio.content_apps import catalogue_read, schema_errors
from studio.documents import render_content
from studio.reading import read_event, read_outline, read_pending_request, read_result, usable_id


def headings(nodes: list[dict]) -> list:
    return [(node["heading"], headings(node["nodes"])) if node["nodes"] else node["heading"] for node in nodes]


@pytest.mark.parametrize(
    ("raw", "title", "expected"),
    [
        ({"title": "Deck", "sections": [{"heading": "Intro"}, {"heading": "Plan"}]}, "Deck", ["Intro", "Plan"]),
        (["Intro", "Plan"], "", ["Intro", "Plan"]),
        ("# Intro\n- Plan\n\n2. Close", "", ["Intro", "Plan", "Close"]),
        ({"Intro": ["Why", "Who"], "Plan": "Steps"}, "", [("Intro", ["Why", "Who"]), ("Plan", ["Steps"])]),
        ({"slides": [{"title": "One", "bullets": ["a", {"text": "b"}]}]}, "", [("One", ["a", "b"])]),
        ([[["deep"]]], "", ["deep"]),
        ({"sections": [{"nothing": None}, 3, True, None]}, "", ["3"]),
        (42, "", []),
    ],
)
def test_an_outline_of_any_shape_reads_as_headings_and_points(raw, title, expected):
    outline = read_outline(raw)
    assert outline["title"] == title
    assert headings(outline["nodes"]) == expected


def test_a_huge_or_deep_outline_is_bounded():
    deep: dict = {"heading": "leaf"}
    for _ in range(50):
        deep = {"heading": "level", "children": [deep]}
    assert read_outline(deep)  # no recursion error
    assert len(read_outline(["x"] * 10_000)["nodes"]) <= 400


@pytest.mark.parametrize(
    ("name", "data", "said"),
    [
        ("plan", {"steps": ["Read", "Write"]}, "Plan: Read; Write"),
        ("plan", [{"text": "Read"}], "Plan: Read"),
        (
            "status",
            {"status": "building", "stage": "generate", "message": "Working"},
            "Building · stage generate: Working",
        ),
        ("status", None, "Working…"),
        ("turn", {"status": "building"}, "The director took the turn (building)"),
        ("error", {"message": "Broke"}, "Broke"),
    ],
)
def test_progress_events_read_as_lines(name, data, said):
    assert read_event(name, data)["text"] == said


@pytest.mark.parametrize(
    ("raw", "app"),
    [
        ({"app": "generate", "label": "Film"}, "generate"),
        ({"path": "/v1/studio/video/apps/motion"}, "motion"),
        ({"kind": "film"}, "generate"),
        ({"app": "../../admin"}, ""),
        ({"kind": "captions"}, ""),
        ("Add captions", ""),
    ],
)
def test_a_pending_request_names_the_app_that_makes_it_when_it_can(raw, app):
    assert read_pending_request(raw)["app"] == app


def test_results_are_read_tolerantly_and_never_link_anything_but_http():
    result = read_result({"assets": [{"url": "javascript:alert(1)"}, {"url": "https://x.example/a.png", "id": "a/b"}]})
    assert [image["url"] for image in result["images"]] == ["https://x.example/a.png"]
    assert result["images"][0]["id"] == ""  # not an id for a path
    assert read_result({"job": {"status": "building"}})["status"] == "building"
    assert read_result("odd")["images"] == []
    assert usable_id("ok-1") == "ok-1" and usable_id("a\x00") == "" and usable_id(True) == ""


def test_html_content_is_sanitised_too():
    html = str(
        render_content(
            '<p onclick="x()">Hi</p><iframe src="https://evil"></iframe><a href="javascript:x">y</a>', "html"
        )
    )
    assert html == '<p>Hi</p><a rel="noopener noreferrer nofollow">y</a>'
    assert str(render_content("<b>not markup</b>", "text")) == "<p>&lt;b&gt;not markup&lt;/b&gt;</p>"


def test_the_catalogue_skips_what_it_cannot_route_and_a_broken_schema_checks_nothing():
    apps = catalogue_read(
        {
            "apps": [
                {"studio": "image", "id": "ok"},
                {"studio": "audio", "id": "x"},
                {"studio": "video", "id": "A/B"},
                "junk",
            ]
        }
    )
    assert [app.id for app in apps] == ["ok"]
    assert apps[0].runnable and apps[0].label == "ok" and apps[0].group == "other"
    assert schema_errors({"type": "not-a-type"}, {}) == []
    assert schema_errors(
        {"required": ["prompt"], "properties": {"prompt": {"type": "string", "maxLength": 3}}}, {"prompt": "long"}
    ) == [("prompt", "At most 3 characters.")]
