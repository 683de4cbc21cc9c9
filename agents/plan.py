"""An agent's plan read as a graph and laid out left to right for an SVG the
server renders (templates/agents/_plan_graph.html): no script draws it, so
the strict CSP holds and the graph is there without JavaScript.

The contract leaves the inner fields of nodes and edges open, so both are
read tolerantly: an edge may be `"a->b"`, `["a", "b"]`, `{from, to}`,
`{source, target}` or `{from: {node_id, port}, to: {node_id, port}}` (and
node ids may be named by `id`, `node`, `node_id`, `key`); an edge that names
a node the plan doesn't have still shows, as a dashed line to a node marked
"not in the plan".

The layout is a small layered (Sugiyama-style) one: each node's layer is the
longest path to it from a source (cycles are broken by ignoring edges back to
a node on the current path), then nodes are ordered inside their layer by
the mean position of their parents, twice over. Plans are tens of nodes, so
the quadratic parts cost nothing.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from dashboard.web.reading import as_dict, as_list, pretty_json, text

# The node kinds the spec names, with the words a person reads. Any other kind
# is drawn generically with its own name.
KNOWN_KINDS = {
    "trigger": "Wake-up",
    "agent": "Agent",
    "email": "Email",
    "ai_decide": "AI decision",
    "branch": "Branch",
}
NODE_WIDTH = 168
NODE_HEIGHT = 56
LAYER_GAP = 72  # between the columns, room for an edge's label
ROW_GAP = 28
MARGIN = 16
LABEL_CHARS = 22

_ARROW = re.compile(r"\s*(?:->|→|=>)\s*")
_NODE_KEYS = ("node_id", "node", "id", "key", "name")
_SOURCE_KEYS = ("from", "source", "src", "start", "from_node", "source_id")
_TARGET_KEYS = ("to", "target", "dst", "end", "to_node", "target_id")
_PORT_KEYS = ("port", "handle", "output", "outcome", "branch", "condition")


def _short(value: str, limit: int = LABEL_CHARS) -> str:
    return value if len(value) <= limit else value[: limit - 1].rstrip() + "…"


def _endpoint(value: Any) -> tuple[str, str]:
    """(node id, port) of one end of an edge, whatever its shape."""
    if isinstance(value, dict):
        node = next((text(value[key]) for key in _NODE_KEYS if value.get(key) not in (None, "")), "")
        port = next((text(value[key]) for key in _PORT_KEYS if value.get(key) not in (None, "")), "")
        return node, port
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        node, _, port = str(value).partition(":")  # "node:port", a common shorthand
        return node.strip(), port.strip()
    return "", ""


def read_edge(raw: Any) -> dict[str, str] | None:
    """An edge as {source, target, source_port, target_port, label}; None when
    nothing in it names two ends."""
    if isinstance(raw, str):
        parts = _ARROW.split(raw.strip(), maxsplit=1)
        if len(parts) != 2:
            return None
        (source, source_port), (target, target_port) = _endpoint(parts[0]), _endpoint(parts[1])
        label = ""
    elif isinstance(raw, list) and len(raw) >= 2:
        (source, source_port), (target, target_port) = _endpoint(raw[0]), _endpoint(raw[1])
        label = text(raw[2]) if len(raw) > 2 and isinstance(raw[2], str) else ""
    elif isinstance(raw, dict):
        source, source_port = _endpoint(next((raw[key] for key in _SOURCE_KEYS if key in raw), None))
        target, target_port = _endpoint(next((raw[key] for key in _TARGET_KEYS if key in raw), None))
        own_port = next((text(raw[key]) for key in _PORT_KEYS if isinstance(raw.get(key), (str, int))), "")
        source_port = source_port or own_port
        label = text(raw.get("label") or raw.get("name") or raw.get("when") or "")
        if isinstance(raw.get("label"), (dict, list)):
            label = ""
    else:
        return None
    if not source or not target:
        return None
    return {
        "source": source,
        "target": target,
        "source_port": source_port,
        "target_port": target_port,
        "label": label or source_port or target_port,
    }


def _node_id(node: dict, index: int) -> str:
    return next(
        (text(node[key]) for key in ("id", "node_id", "key") if node.get(key) not in (None, "")), f"#{index + 1}"
    )


def read_nodes(raw: Any) -> list[dict[str, Any]]:
    """Plan nodes as [{id, kind, kind_label, known_kind, name, config, other}],
    in the plan's order. Nodes given as a mapping of id to node are read too."""
    if isinstance(raw, dict):
        raw = [{"id": key, **value} if isinstance(value, dict) else {"id": key} for key, value in raw.items()]
    nodes = []
    seen: set[str] = set()
    for index, node in enumerate(as_list(raw)):
        if not isinstance(node, dict):
            node = {"id": text(node)} if isinstance(node, str) else {}
        node_id = _node_id(node, index)
        if node_id in seen:
            node_id = f"{node_id} ({index + 1})"
        seen.add(node_id)
        kind = text(node.get("kind") or node.get("type")) or "step"
        name = text(node.get("label") or node.get("name") or node.get("title")) or KNOWN_KINDS.get(
            kind, kind.replace("_", " ").capitalize()
        )
        known = {"id", "node_id", "key", "kind", "type", "label", "name", "title", "config"}
        nodes.append(
            {
                "id": node_id,
                "kind": kind,
                "kind_label": KNOWN_KINDS.get(kind, kind.replace("_", " ").capitalize()),
                "known_kind": kind in KNOWN_KINDS,
                "name": name,
                "config": node.get("config"),
                "other": {key: value for key, value in node.items() if key not in known},
            }
        )
    return nodes


def _layers(ids: list[str], edges: list[tuple[str, str]]) -> dict[str, int]:
    """Longest-path layering from the sources. Edges that close a loop (found
    by a depth-first walk: they lead back to a node on the current path) are
    left out of the layering, then layers follow a topological order. Both
    walks are iterative: a hostile plan can be long without a deep stack."""
    children: dict[str, list[str]] = defaultdict(list)
    for source, target in edges:
        if source != target:
            children[source].append(target)
    back: set[tuple[str, str]] = set()
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for root in ids:
        if root in state:
            continue
        state[root] = 1
        stack = [(root, iter(children[root]))]
        while stack:
            node, pending = stack[-1]
            child = next(pending, None)
            if child is None:
                state[node] = 2
                stack.pop()
            elif state.get(child) == 1:
                back.add((node, child))
            elif child not in state:
                state[child] = 1
                stack.append((child, iter(children[child])))
    forward = [(s, t) for s, t in edges if s != t and (s, t) not in back]
    incoming = dict.fromkeys(ids, 0)
    for _, target in forward:
        incoming[target] += 1
    layer = dict.fromkeys(ids, 0)
    ready = [node for node in ids if incoming[node] == 0]
    outgoing: dict[str, list[str]] = defaultdict(list)
    for source, target in forward:
        outgoing[source].append(target)
    while ready:
        node = ready.pop()
        for target in outgoing[node]:
            layer[target] = max(layer[target], layer[node] + 1)
            incoming[target] -= 1
            if incoming[target] == 0:
                ready.append(target)
    return layer


def layout(nodes: list[dict], edges: list[dict]) -> dict[str, Any]:
    """Positions for every node and a path for every edge, left to right."""
    ids = [node["id"] for node in nodes]
    pairs = [(edge["source"], edge["target"]) for edge in edges]
    layer = _layers(ids, pairs)
    columns: dict[int, list[str]] = defaultdict(list)
    for node_id in ids:
        columns[layer[node_id]].append(node_id)
    parents: dict[str, list[str]] = defaultdict(list)
    for source, target in pairs:
        if layer.get(source, 0) < layer.get(target, 0):
            parents[target].append(source)
    # Barycentre ordering, two sweeps: fewer crossings, stable for ties.
    for _ in range(2):
        position = {node_id: index for column in columns.values() for index, node_id in enumerate(column)}
        for depth in sorted(columns)[1:]:
            column = columns[depth]

            def weight(node_id: str, column: list[str] = column, position: dict = position) -> float:
                placed = [position[parent] for parent in parents[node_id] if parent in position]
                return sum(placed) / len(placed) if placed else column.index(node_id)

            columns[depth] = sorted(column, key=weight)
    rows = max((len(column) for column in columns.values()), default=0)
    height = MARGIN * 2 + rows * NODE_HEIGHT + max(rows - 1, 0) * ROW_GAP
    spots: dict[str, tuple[int, int]] = {}
    for depth, column in columns.items():
        # Each column centred in the height: short columns sit in the middle.
        column_height = len(column) * NODE_HEIGHT + (len(column) - 1) * ROW_GAP
        top = (height - column_height) // 2
        for index, node_id in enumerate(column):
            spots[node_id] = (MARGIN + depth * (NODE_WIDTH + LAYER_GAP), top + index * (NODE_HEIGHT + ROW_GAP))
    width = MARGIN * 2 + (max(columns, default=0) + 1) * NODE_WIDTH + max(columns, default=0) * LAYER_GAP
    return {"spots": spots, "width": width if ids else 0, "height": height if ids else 0}


def _edge_path(source: tuple[int, int], target: tuple[int, int]) -> tuple[str, int, int]:
    """A smooth curve from the right of `source` to the left of `target`
    (a loop back is drawn under the nodes), and where its label goes."""
    sx, sy = source[0] + NODE_WIDTH, source[1] + NODE_HEIGHT // 2
    tx, ty = target[0], target[1] + NODE_HEIGHT // 2
    if tx > sx:
        bend = (tx - sx) // 2
        return f"M{sx},{sy} C{sx + bend},{sy} {tx - bend},{ty} {tx},{ty}", (sx + tx) // 2, (sy + ty) // 2 - 6
    below = max(source[1], target[1]) + NODE_HEIGHT + ROW_GAP // 2 + 4
    path = f"M{sx},{sy} C{sx + 40},{sy} {sx + 40},{below} {(sx + tx) // 2},{below} S{tx - 40},{ty} {tx},{ty}"
    return path, (sx + tx) // 2, below - 4


def plan_graph(raw_plan: Any, *, issues: list[dict] | None = None) -> dict[str, Any]:
    """Everything the plan's SVG needs: nodes with their box, edges with their
    path and label, the issues on each node, and what could not be drawn."""
    plan = as_dict(raw_plan)
    nodes = read_nodes(plan.get("nodes"))
    edges = [edge for edge in map(read_edge, as_list(plan.get("edges"))) if edge]
    unreadable_edges = [raw for raw in as_list(plan.get("edges")) if read_edge(raw) is None]
    known = {node["id"] for node in nodes}
    for edge in edges:  # an end the plan doesn't have: drawn, and said
        for end in ("source", "target"):
            if edge[end] not in known:
                known.add(edge[end])
                nodes.append(
                    {
                        "id": edge[end],
                        "kind": "missing",
                        "kind_label": "Not in the plan",
                        "known_kind": False,
                        "name": edge[end],
                        "config": None,
                        "other": {},
                        "missing": True,
                    }
                )
    names = {node["id"]: node["name"] for node in nodes}
    missing = {node["id"] for node in nodes if node.get("missing")}
    by_node: dict[str, list[dict]] = defaultdict(list)
    for issue in issues or []:
        if issue.get("node_id") in names:
            by_node[issue["node_id"]].append(issue)
    placed = layout(nodes, edges)
    spots = placed["spots"]
    for index, node in enumerate(nodes):
        x, y = spots[node["id"]]
        node.update(
            {
                "index": index + 1,
                "x": x,
                "y": y,
                "text_x": x + 12,
                "short_name": _short(node["name"]),
                "short_kind": _short(node["kind_label"], 20),
                "issues": by_node.get(node["id"], []),
                "slug": re.sub(r"[^a-z0-9]+", "-", node["kind"].lower()).strip("-") or "step",
                "config_json": pretty_json(node["config"]) if node["config"] not in (None, {}, []) else "",
                "missing": node.get("missing", False),
            }
        )
    drawn_edges = []
    for edge in edges:
        path, label_x, label_y = _edge_path(spots[edge["source"]], spots[edge["target"]])
        drawn_edges.append(
            {
                **edge,
                "path": path,
                "label_x": label_x,
                "label_y": label_y,
                "short_label": _short(edge["label"], 16),
                "source_name": names[edge["source"]],
                "target_name": names[edge["target"]],
                "dashed": edge["source"] in missing or edge["target"] in missing,
            }
        )
    return {
        "nodes": nodes,
        "edges": drawn_edges,
        "width": placed["width"],
        "height": placed["height"],
        "node_width": NODE_WIDTH,
        "node_height": NODE_HEIGHT,
        "unreadable_edges": unreadable_edges,
        "issues_elsewhere": [issue for issue in issues or [] if issue.get("node_id") not in names],
    }


def issues_named(issues: list[dict[str, Any]], raw_plan: Any) -> list[dict[str, Any]]:
    """Issues (reading.read_issue) with `where` in words: the step's name as
    the plan gives it (its label, name or title, else its kind), not its id;
    `step_name` for the page. An id the plan lacks stays said as an id."""
    names = {node["id"]: node["name"] for node in read_nodes(as_dict(raw_plan).get("nodes"))}
    named = []
    for issue in issues:
        node_id = issue.get("node_id") or ""
        step = names.get(node_id, "")
        parts = [f"step “{step}”" if step else (f"a step the plan does not have: {node_id}" if node_id else "")]
        if issue.get("field"):
            parts.append(f"field {issue['field']}")
        named.append({**issue, "step_name": step, "where": ", ".join(part for part in parts if part)})
    return named


def node_in(graph: dict[str, Any], node_id: str) -> dict[str, Any] | None:
    return next((node for node in graph["nodes"] if node["id"] == node_id), None)


def run_path(graph: dict[str, Any], steps: list[dict[str, Any]]) -> dict[str, Any]:
    """Mark where a run passed on its agent's plan: each node a step ran at
    (`step_number`: the first such step, where the node links to), and each
    edge the run took (from one step's node to the next one's). Steps naming
    no node, or a node the plan no longer has, are left out of the drawing."""
    order = [step["node_id"] for step in steps if step.get("node_id")]
    first: dict[str, int] = {}
    for step in steps:
        if step.get("node_id"):
            first.setdefault(step["node_id"], step["number"])
    taken = set(zip(order, order[1:], strict=False))
    for node in graph["nodes"]:
        node["step_number"] = first.get(node["id"])
    for edge in graph["edges"]:
        edge["passed"] = (edge["source"], edge["target"]) in taken
    graph["passed"] = sum(1 for node in graph["nodes"] if node["step_number"])
    return graph
