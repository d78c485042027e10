"""The HTML report's charts (plotly figures, drawn by the page from ``file://`` with plotly.js inlined): the
hand-score and margin histograms, the players' and contracts' bars, the dealt hands against their exact
probabilities; with the colours, label text and layout they share (:mod:`pipeline.report.html_report` places them)."""

from __future__ import annotations

import pyarrow as pa

from pipeline.report import report_data
from pipeline.stats.fairness import depends_on_trump

TAKER, DEFENCE, GOOD, BAD, GREY, AMBER = "#1f6feb", "#d1495b", "#2e9e5b", "#d1495b", "#9aa5b1", "#e3a21a"

#: Players shown in the take/success chart (the most hands first).
CHART_PLAYERS = 25


#: Longest player name in chart labels (longer ones are cut with an ellipsis; the tables show them whole).
LABEL_CHARS = 24


def plot_text(value, limit: int | None = None) -> str:
    """Text for a plotly label, title or legend. Plotly draws a few HTML tags (<b>, <br>, <a href>...) and
    decodes &amp; &lt; &gt; and numeric entities (not &quot;): escaping & < > is what keeps a name a
    name. ``limit``: cut longer texts to that many characters, with an ellipsis."""
    text = "" if value is None else str(value)
    if limit is not None and len(text) > limit:
        text = text[:limit - 1] + "…"
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _layout(fig, title: str, xaxis: str, yaxis: str, height: int = 380, **kw) -> None:
    fig.update_layout(template="plotly_white", height=height,
                      title=dict(text=plot_text(title), x=0, xanchor="left", y=0.98, yanchor="top"),
                      margin=dict(l=60, r=20, t=80, b=60), xaxis_title=plot_text(xaxis), yaxis_title=plot_text(yaxis),
                      legend=dict(orientation="h", yanchor="bottom", y=1.01, xanchor="left", x=0),
                      font=dict(family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif", size=13), **kw)


def _histogram(bins: report_data.Bins, series: dict[str, tuple[str, str]], title: str, xaxis: str) -> object:
    """Bars per bin (bin centre on x), overlaid, one trace per series name -> (label, colour)."""
    import plotly.graph_objects as go

    fig = go.Figure()
    shown = {k: v for k, v in series.items() if bins.total(k)} or series     # no legend entry for an empty series
    for name, (label, colour) in shown.items():
        fig.add_trace(go.Bar(
            x=[s + bins.width / 2 for s in bins.starts], y=bins.counts[name], width=bins.width * 0.95,
            name=plot_text(f"{label} ({bins.all(name)})"), marker_color=colour, opacity=0.7,
            customdata=[[s, s + bins.width - 1] for s in bins.starts] if bins.width > 1 else bins.starts,
            hovertemplate=(("%{customdata[0]} to %{customdata[1]}" if bins.width > 1 else "%{customdata}")
                           + ": %{y} hands<extra>" + plot_text(label) + "</extra>")))
    _layout(fig, title, xaxis, "hands", barmode="overlay", bargap=0)
    beyond = sum(bins.outside.get(k, 0) for k in shown)
    if beyond and bins.starts:
        fig.add_annotation(x=1, y=1, xref="paper", yref="paper", xanchor="right", yanchor="top", showarrow=False,
                           font=dict(color="#52606d", size=12),
                           text=plot_text(f"{beyond} beyond {bins.starts[0]} to {bins.starts[-1] + bins.width - 1}: "
                                          "counted, not drawn"))
    return fig


def _margin_figure(bins: report_data.Bins) -> object:
    fig = _histogram(bins, {"bid": ("bid contracts: points − bid", TAKER),
                            "prise": ("prise: points − defence's points", AMBER)}, "Taker's margin", "card points")
    fig.add_vline(x=0, line_dash="dash", line_color="#52606d")
    fig.add_annotation(x=0, y=1, xref="x", yref="paper", text="made →", showarrow=False, xanchor="left",
                       yanchor="top", xshift=4, font=dict(color="#52606d"))
    return fig


def _player_labels(rows: list[dict]) -> list[str]:
    """Chart labels: the name, with its source when several sources are shown (names are per source)."""
    several = len({r["source"] for r in rows}) > 1
    return [plot_text(r["player"], LABEL_CHARS) + (plot_text(f" · {r['source']}") if several else "") for r in rows]


def _players_figure(players: pa.Table) -> object:
    """Horizontal grouped bars, one pair per player (most hands at the top): take rate and success rate,
    each labelled with its numerator/denominator."""
    import plotly.graph_objects as go

    rows = players.slice(0, CHART_PLAYERS).to_pylist()
    labels = _player_labels(rows)
    full = [plot_text(f"{r['player']} · {r['source']}") for r in rows]     # hover: the whole name
    success = [r["made"] / r["decided"] if r["decided"] else None for r in rows]
    fig = go.Figure([
        go.Bar(y=labels, x=[r["take_rate"] for r in rows], name="take rate (taken / hands)", marker_color=TAKER,
               orientation="h", text=[f"{r['taken']}/{r['hands']}" for r in rows], textposition="outside",
               customdata=full, hovertemplate="%{customdata}<br>take rate %{x:.1%} (%{text} hands)<extra></extra>"),
        go.Bar(y=labels, x=success, name="success rate (made / decided)", marker_color=GOOD, orientation="h",
               text=[f"{r['made']}/{r['decided']}" for r in rows], textposition="outside", customdata=full,
               hovertemplate="%{customdata}<br>success rate %{x:.1%} (%{text} contracts)<extra></extra>"),
    ])
    shown = f" (the {len(rows)} with the most hands)" if players.num_rows > len(rows) else ""
    _layout(fig, f"Take rate and success rate per player{shown}", "rate", "", height=130 + 38 * len(rows),
            barmode="group", bargap=0.25)
    fig.update_xaxes(tickformat=".0%", range=[0, 1.12])
    fig.update_yaxes(autorange="reversed", automargin=True)
    fig.update_traces(cliponaxis=False, textfont_size=11)
    return fig


_RESULTS = (("made", "made", GOOD), ("failed", "failed", BAD), ("litiges", "litige", AMBER),
            ("unscored", "no result (unscorable or not rescored)", GREY))


def _contracts_figure(by_strain: dict[str, dict[str, int]]) -> object:
    import plotly.graph_objects as go

    strains = list(by_strain)
    names = {"C": "♣ clubs", "D": "♦ diamonds", "H": "♥ hearts", "S": "♠ spades", "NT": "no trump", "AT": "all trump"}
    labels = [plot_text(names.get(s, s)) for s in strains]
    fig = go.Figure([go.Bar(x=labels, y=[by_strain[s][key] for s in strains], name=plot_text(label),
                            marker_color=colour, hovertemplate="%{x}: %{y} " + plot_text(label) + "<extra></extra>",
                            showlegend=any(by_strain[s][key] for s in strains))    # no legend entry for 0
                     for key, label, colour in _RESULTS])
    fig.add_trace(go.Scatter(x=labels, y=[by_strain[s]["contracts"] for s in strains], mode="text",
                             text=[f"{by_strain[s]['made']}/{by_strain[s]['made'] + by_strain[s]['failed']} made"
                                   for s in strains], textposition="top center", showlegend=False,
                             hoverinfo="skip"))
    _layout(fig, "Contracts by strain and result", "strain", "contracts", barmode="stack")
    top = max([d["contracts"] for d in by_strain.values()] or [1])
    fig.update_yaxes(range=[0, top * 1.15])
    return fig


#: The dealt-hand charts: (figure id, title, x-axis title, event filter). The first two hold the events of the
#: deal alone, the last the events that depend on the contract's trump (:func:`pipeline.stats.fairness.depends_on_trump`).
DEALT_CHARTS = (
    ("carres", "Carrés dealt: observed vs expected", "carré of (rank), or any of them",
     lambda e: e.startswith("carre_")),
    ("patterns", "Runs and voids: observed vs expected", "run of 3, 4, 5+ in a suit; a void",
     lambda e: e.startswith(("run_", "void"))),
    ("trump", "Trump cards held per hand, and the J+9 of trump: observed vs expected",
     "trump cards in the hand (the contract's suit, chosen after seeing cards); J9 = the J and 9 of trump",
     depends_on_trump),
)


def _dealt_figures(fair: pa.Table) -> list[tuple[str, object]]:
    """(id, figure) per :data:`DEALT_CHARTS`: observed vs expected counts of the fairness events (one group),
    with +-2 binomial standard deviations on the expected bars."""
    import plotly.graph_objects as go

    rows = fair.to_pylist()
    out = []
    for fid, title, xaxis, keep in DEALT_CHARTS:
        subset = [r for r in rows if keep(r["event"])]
        x = [r["event"].removeprefix("trump_len_").removeprefix("trump_").removeprefix("carre_") for r in subset]
        p = [r["expected"] / r["hands"] if r["hands"] else 0.0 for r in subset]
        sd = [2 * (r["hands"] * q * (1 - q)) ** 0.5 for r, q in zip(subset, p)]
        fig = go.Figure([
            go.Bar(x=x, y=[r["observed"] for r in subset], name="observed", marker_color=TAKER,
                   customdata=[[r["hands"], r["p_value"]] for r in subset],
                   hovertemplate="%{x}: observed %{y} of %{customdata[0]} hands, p = %{customdata[1]:.3g}"
                                 "<extra></extra>"),
            go.Bar(x=x, y=[r["expected"] for r in subset], name="expected (fair shuffle, ± 2 sd)",
                   marker_color=GREY, error_y=dict(type="data", array=sd, color="#52606d", thickness=1.2,
                                arrayminus=[min(d, r["expected"]) for d, r in zip(sd, subset)]),
                   hovertemplate="%{x}: expected %{y:.2f}<extra></extra>"),
        ])
        _layout(fig, title, xaxis, "seat hands", height=340, barmode="group")
        out.append((fid, fig))
    return out
