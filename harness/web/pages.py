"""The HTML of every page, built from the same JSON documents the CLI prints (no template engine).

Every number a page shows comes from the document its JSON endpoint serves
(``harness leaderboard --json`` and friends), formatted as the CLI formats it,
so a page and the command line never disagree. Cells carry ``data-value``
with the unrounded number for sorting and for tests.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import quote, urlencode

Cell = tuple[str, str]  # (html, css class)


def escape(value: Any) -> str:
    """Text for HTML: None as a dash."""
    return "-" if value is None else html.escape(str(value))


def number(value: float | None, digits: int = 3) -> str:
    """A number as the CLI prints it (fixed digits); None as a dash."""
    return "-" if value is None else f"{value:.{digits}f}"


def layout(title: str, body: str, head: str = "", refresh: int | None = None) -> str:
    """A whole page: the navigation bar, the title, the body; the site's CSS and JS (all served locally)."""
    meta = f'<meta http-equiv="refresh" content="{refresh}">' if refresh else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{escape(title)} - harness</title>
<link rel="icon" href="data:,">{meta}
<link rel="stylesheet" href="/static/harness.css">
{head}</head><body>
<nav><a class="brand" href="/">harness</a><a href="/">games</a><a href="/runs">runs</a>
<a href="/studies">studies</a><a href="/players">players</a><a class="muted" href="/api">JSON</a></nav>
<main><h1>{escape(title)}</h1>
{body}
</main><script src="/static/harness.js"></script></body></html>"""


def table(columns: Sequence[tuple[str, str]], rows: Iterable[Sequence[tuple[str, Any]]], table_id: str = "",
          sortable: bool = True) -> str:
    """A table: columns are (label, css class); each row's cells are (html, sort value or None)."""
    head = "".join(f'<th class="{css}">{escape(label)}</th>' for label, css in columns)
    body = []
    for row in rows:
        cells = []
        for (content, value), (_, css) in zip(row, columns):
            data = "" if value is None else f' data-value="{escape(value)}"'
            cells.append(f'<td class="{css}"{data}>{content}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    attributes = (f' id="{table_id}"' if table_id else "") + (' class="sortable"' if sortable else "")
    return f"<table{attributes}><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def link(href: str, text: Any) -> str:
    return f'<a href="{escape(href)}">{escape(text)}</a>'


def game_href(game: str, **query: Any) -> str:
    """The leaderboard page of a game configuration, with filters."""
    given = {k: v for k, v in query.items() if v not in (None, "")}
    return f"/games/{quote(game, safe=':')}" + (f"?{urlencode(given)}" if given else "")


def interval_bar(low: float | None, mean: float, high: float | None, bounds: tuple[float, float]) -> str:
    """The 95% interval as a bar over the game's whole score range, the mean as a tick."""
    width, height = 160, 14
    lowest, highest = bounds
    span = (highest - lowest) or 1.0

    def x(value: float) -> float:
        return round(1 + (min(max(value, lowest), highest) - lowest) / span * (width - 2), 1)

    start, end = x(lowest if low is None else low), x(highest if high is None else high)
    return (f'<svg class="bar" width="{width}" height="{height}" viewBox="0 0 {width} {height}">'
            f'<rect x="0.5" y="3.5" width="{width - 1}" height="7" fill="#f1f1f1" stroke="#ccc"/>'
            f'<rect x="{start}" y="3.5" width="{max(end - start, 1)}" height="7" fill="#7aa6d8"/>'
            f'<line x1="{x(mean)}" y1="0" x2="{x(mean)}" y2="{height}" stroke="#23395d" stroke-width="2"/></svg>')


def home(counts: dict[str, int], games: dict[str, str], summaries: list[dict[str, Any]]) -> str:
    """Games with their recorded configurations, and the newest runs."""
    rows = []
    for name, description in games.items():
        configurations = {spec: count for spec, count in counts.items() if spec.partition(":")[0] == name}
        links = ", ".join(f"{link(game_href(spec), spec)} ({count})" for spec, count in configurations.items())
        rows.append([(escape(name), name), (escape(description), None),
                     (links or '<span class="muted">no matches yet</span>', sum(configurations.values()))])
    body = table([("game", ""), ("", ""), ("recorded configurations (matches)", "")], rows, "games", sortable=False)
    newest = list(reversed(summaries))[:10]
    body += "<h2>Newest runs</h2>" + (runs_table(newest) if newest else
                                       '<p class="empty">No runs recorded yet: harness tournament, '
                                       'harness play --record.</p>')
    return body


def runs_table(runs: list[dict[str, Any]]) -> str:
    rows = []
    for run in runs:
        planned = run["planned"]
        progress = (f'<progress value="{run["matches"]}" max="{planned}"></progress> {run["matches"]}/{planned}'
                    if planned else str(run["matches"]))
        rows.append([(link(f"/runs/{run['id']}", run["id"]), run["id"]), (escape(run["name"]), None),
                     (escape(run["kind"]), None), (link(game_href(run["game"]), run["game"]), None),
                     (f'<span class="status-{escape(run["status"])}">{escape(run["status"])}</span>', None),
                     (progress, run["matches"]), (number(run["mean_score"]), run["mean_score"]),
                     (number(run["games_per_s"], 2), run["games_per_s"]), (escape(run["started"][:19]), None)])
    return table([("id", "num"), ("name", ""), ("kind", ""), ("game", ""), ("status", ""), ("matches", ""),
                  ("mean score", "num"), ("games/s", "num"), ("started (UTC)", "")], rows, "runs")


def leaderboard(document: dict[str, Any], ratings: dict[str, Any], bounds: tuple[float, float],
                opponents: list[str], runs: list[dict[str, Any]]) -> str:
    """The leaderboard with its filters and interval bars, then the Elo ratings."""
    game = document["game"]
    options = ['<option value="">every opponent</option>'] + [
        f'<option value="{escape(o)}"{" selected" if o == document["opponent"] else ""}>{escape(o)}</option>'
        for o in opponents]
    run_options = ['<option value="">every run</option>'] + [
        f'<option value="{r["id"]}"{" selected" if r["id"] == document["run_id"] else ""}>'
        f'{r["id"]}{" " + escape(r["name"]) if r["name"] else ""} ({escape(r["kind"])})</option>' for r in runs]
    by = "".join(f'<option value="{b}"{" selected" if b == document["by"] else ""}>{b}</option>'
                 for b in ("mean", "lcb"))
    body = [f'<form class="filters" method="get" action="{escape(game_href(game))}">'
            f'<label>opponent<select name="opponent" id="opponent">{"".join(options)}</select></label>'
            f'<label>run<select name="run" id="run">{"".join(run_options)}</select></label>'
            f'<label>rank by<select name="by" id="by">{by}</select></label>'
            '<button type="submit">show</button></form>',
            f'<p class="muted">Score bounds {bounds[0]:g} to {bounds[1]:g}; 95% intervals inside them '
            f'(Wilson for a rate, else Student t clipped). Same data: '
            f'{link("/api" + game_href(game) + "/leaderboard", "JSON")}.</p>']
    rows = []
    for row in document["rows"]:
        rows.append([(str(row["rank"]), row["rank"]), (escape(row["player"]), row["player"]),
                     (escape(row["alias"]), row["alias"] or ""), (escape(row["verdict"]), row["verdict"] or ""),
                     (str(row["games"]), row["games"]),
                     (str(row["wins"]), row["wins"]), (str(row["draws"]), row["draws"]),
                     (str(row["losses"]), row["losses"]), (number(row["mean"]), row["mean"]),
                     (f"[{number(row['low'])}, {number(row['high'])}]", row["low"]),
                     (interval_bar(row["low"], row["mean"], row["high"], bounds), row["mean"]),
                     (number(row["best"]), row["best"]), (number(row["worst"]), row["worst"]),
                     (str(row["mismatches"]), row["mismatches"])])
    if rows:
        body.append(table([("#", "num"), ("player", "spec"), ("alias", ""), ("verdict", ""), ("games", "num"),
                           ("W", "num"),
                           ("D", "num"), ("L", "num"), ("mean", "num"), ("95% interval", "num"),
                           ("interval", ""), ("best", "num"), ("worst", "num"), ("live≠", "num")], rows,
                          "leaderboard"))
    else:
        body.append(f'<p class="empty" id="leaderboard-empty">No {escape(game)} matches recorded for these '
                    'filters yet.</p>')
    body.append(f"<h2>Elo ratings ({escape(ratings['game'])}, every configuration, Bradley-Terry)</h2>")
    if ratings["ratings"]:
        note = (f'<p class="muted">{ratings["prior_draws"]:g} virtual draws per player added (a player won or '
                'lost every game).</p>') if ratings["prior_draws"] else ""
        body.append(note + table(
            [("#", "num"), ("player", "spec"), ("Elo", "num"), ("95% interval", "num"), ("games", "num"),
             ("points", "num")],
            [[(str(r["rank"]), r["rank"]), (escape(r["player"]), r["player"]), (f"{r['elo']:.0f}", r["elo"]),
              (f"[{r['low']:.0f}, {r['high']:.0f}]", r["low"]), (str(r["games"]), r["games"]),
              (f"{r['points']:g}", r["points"])] for r in ratings["ratings"]], "ratings"))
    else:
        body.append('<p class="empty">No rated games yet.</p>')
    return "\n".join(body)


def run_page(run: dict[str, Any], matches: list[dict[str, Any]], more: int) -> str:
    """One run: its settings and progress, then its matches, each linking to its replay."""
    body = [runs_table([run]), f"<pre>{escape(json.dumps(run['config'], indent=1))}</pre>"]
    rows = [[(link(f"/matches/{m['match_id']}", m["match_id"]), m["match_id"]), (escape(m["player"]), m["player"]),
             (escape(m["opponent"]), m["opponent"]), (str(m["seed"]), m["seed"]), (escape(m["outcome"]), None),
             (escape(m["reason"]), None), (f"{m['score']:g}", m["score"]), (str(m["plies"]), m["plies"])]
            for m in matches]
    body.append("<h2>Matches</h2>")
    if rows:
        body.append(table([("match", "num"), ("player", "spec"), ("opponent", "spec"), ("seed", "num"),
                           ("outcome", ""), ("reason", ""), ("score", "num"), ("plies", "num")], rows, "matches"))
    else:
        body.append('<p class="empty">No matches recorded in this run yet.</p>')
    if more:
        body.append(f'<p class="muted">and {more} more (harness export --run {run["id"]} lists every one)</p>')
    return "\n".join(body)


def replay(match: dict[str, Any], frames: list[dict[str, str]]) -> str:
    """A match's replay: the board of the chosen ply, a slider over every ply, the move that led there."""
    data = json.dumps(frames).replace("</", "<\\/")
    server = "" if match["server_score"] is None else f", server score {match['server_score']:g}"
    return (f'<p>{link(game_href(match["game"]), match["game"])}: <code>{escape(match["player"])}</code> vs '
            f'<code>{escape(match["opponent"])}</code>, seed {match["seed"]}, run '
            f'{link("/runs/" + str(match["run_id"]), match["run_id"])}. Result: <b>{escape(match["outcome"])}</b> '
            f'({escape(match["reason"])}), score {match["score"]:g}{server}, {match["plies"]} plies.</p>'
            '<div class="replay"><div><div class="controls">'
            '<button id="prev" type="button">&larr;</button>'
            f'<input id="ply" type="range" min="0" max="{len(frames) - 1}" value="0" aria-label="ply">'
            '<button id="next" type="button">&rarr;</button><button id="play" type="button">play</button>'
            '<span id="ply-label"></span></div><div id="board"></div><p id="move"></p></div></div>'
            f'<script type="application/json" id="frames">{data}</script>')


def studies(document: dict[str, Any]) -> str:
    rows = [[(link(f"/studies/{quote(s['name'])}", s["name"]), s["name"]), (escape(s["game"]), None),
             (str(s["complete"]), s["complete"]), (str(s["pruned"]), s["pruned"]), (str(s["failed"]), s["failed"]),
             (str(s["running"]), s["running"]),
             ("-" if s["best_value"] is None else f"{s['best_value']:.3f} (trial {s['best_trial']})", s["best_value"]),
             (str(s["games"]), s["games"]), (escape(s["tuned_player"]), None),
             (escape(s["tuned_verdict"]), s["tuned_verdict"] or "")] for s in document["studies"]]
    if not rows:
        return '<p class="empty">No studies recorded yet: harness tune STUDY.toml runs one.</p>'
    return table([("study", ""), ("game", ""), ("complete", "num"), ("pruned", "num"), ("failed", "num"),
                  ("running", "num"), ("best", "num"), ("games", "num"), ("player", ""), ("verdict", "")], rows,
                 "studies")


def players(document: dict[str, Any]) -> str:
    rows = [[(escape(p["name"]), p["name"]), (escape(p["game"]), None),
             (f'<span class="verdict-{escape(p["verdict"].replace(" ", "-"))}">{escape(p["verdict"])}</span>',
              p["verdict"]), (escape(p["verdict_detail"]), None), (escape(p["spec"]), p["spec"]),
             (escape(p["note"]), None)] for p in document["tuned"]]
    if not rows:
        return '<p class="empty">No tuned players yet: harness tune saves a study\'s best as tuned:&lt;study&gt;.</p>'
    return ("<h2>Tuned players</h2>"
            '<p class="muted">The verdict is the study\'s confirmation against its incumbent (its starting '
            "weights); unconfirmed: none stands behind the player.</p>"
            + table([("name", ""), ("game", ""), ("verdict", ""), ("evidence", ""), ("spec", "spec"),
                     ("from", "")], rows, "tuned"))


def error(message: str) -> str:
    return f'<p class="error">{escape(message)}</p>'
