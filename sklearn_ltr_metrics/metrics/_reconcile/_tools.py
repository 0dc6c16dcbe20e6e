"""The tools of :func:`reconcile`: a preset, trec_eval's flags or explicit options, each as
one full setting of the convention options, and how a setting's values are shown."""

from __future__ import annotations

from collections.abc import Mapping

from ..._validation import short_repr
from .._options import CONVENTION_KEYS, CONVENTIONS, check_options, convention_options

#: Options of a TREC evaluation only (``evaluate_run``): trec_eval ``-c`` and ``-J``.
RUN_OPTIONS = {"missing_queries": "skip", "unjudged": "nonrelevant"}
#: The order in which options are listed (and searched).
OPTION_ORDER = (*CONVENTION_KEYS, *RUN_OPTIONS)


def preset_label(name):
    """The display name of a preset (``None`` is the package's ``default``)."""
    return "default" if name is None else name


def _flag_options(tokens, spec):
    """Options from trec_eval-style flags and ``key=value`` tokens after a preset name."""
    options, tokens = {}, list(tokens)
    while tokens:
        token = tokens.pop(0)
        if token == "-c":
            options["missing_queries"] = "zero"
        elif token in ("-J", "judged_only"):
            options["unjudged"] = "remove"
        elif token[:2] in ("-M", "-l"):
            text = token[2:] or (tokens.pop(0) if tokens else "")
            key = "max_docs" if token[:2] == "-M" else "min_relevance"
            options[key] = _number(text, f"{token[:2]} in tool {spec!r}")
        elif "=" in token:
            key, _, text = token.partition("=")
            options[key] = _value(text)
        else:
            raise ValueError(
                f"tool {spec!r}: {token!r} is not understood; after the preset name give "
                "trec_eval flags (-c, -J, -M<N>, -l<N>), 'judged_only' (ir_measures) or "
                "option=value (e.g. ties=stable)."
            )
    return options


def _number(text, where):
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{where}: {text!r} is not a number, e.g. -M100 or -l2.") from None
    return int(value) if value.is_integer() else value


def _value(text):
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return None if text == "None" else text


def tool_setting(spec, *, run):
    """The setting of one tool: every option of ``OPTION_ORDER`` resolved.

    ``spec`` is a preset name (``"default"`` for the package's own) with optional flags
    (``"trec_eval -M100 -c"``, ``"ir_measures judged_only"``, ``"lightgbm ties=average"``), or
    a mapping ``{"conventions": preset, option: value, ...}``.
    """
    if isinstance(spec, str):
        tokens = spec.split()
        if not tokens:
            raise ValueError("tools contains an empty name; name a preset, e.g. 'trec_eval'.")
        preset, options = tokens[0], _flag_options(tokens[1:], spec)
    elif isinstance(spec, Mapping):
        options = dict(spec)
        preset = options.pop("conventions", None)
    else:
        raise TypeError(
            f"a tool must be a preset name (str) or a mapping of options, got {short_repr(spec)}."
        )
    preset = None if preset == "default" else preset
    if preset not in CONVENTIONS:
        names = ", ".join(preset_label(name) for name in CONVENTIONS)
        raise ValueError(
            f"tool {short_repr(spec)}: {preset!r} is not a preset; choose one of {names}."
        )
    run_options = {key: options.pop(key, default) for key, default in RUN_OPTIONS.items()}
    if not run and run_options != RUN_OPTIONS:
        raise ValueError(
            f"tool {short_repr(spec)}: -c (missing_queries) and -J (unjudged, judged_only) "
            "apply to TREC runs with separate judgments; use reconcile_run(run, qrels, ...)."
        )
    for key, allowed in (
        ("missing_queries", ("skip", "zero")),
        ("unjudged", ("nonrelevant", "remove")),
    ):
        if run_options[key] not in allowed:
            raise ValueError(
                f"tool {short_repr(spec)}: {key}={run_options[key]!r}; use one of {allowed}."
            )
    unknown = sorted(set(options) - set(CONVENTION_KEYS))
    if unknown:
        raise TypeError(
            f"tool {short_repr(spec)}: unexpected option(s) {unknown}; a tool sets convention "
            f"options only: {', '.join(OPTION_ORDER)}."
        )
    try:
        resolved = check_options(preset, **options)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"tool {short_repr(spec)}: {exc}") from None
    setting = {key: resolved[key] for key in CONVENTION_KEYS}
    # an explicit None (min_relevance, default_k, max_docs) overrides the preset, which
    # check_options reads as "the preset's value"
    for key in [key for key, value in options.items() if value is None]:
        choices = convention_options()[key]["choices"]
        if choices is not None:
            raise ValueError(
                f"tool {short_repr(spec)}: {key}=None is not valid; choose one of "
                f"{', '.join(map(repr, choices))}."
            )
        setting[key] = None
    if run:
        setting.update(run_options)
    return setting


def _hashable(value):
    return tuple(sorted(value.items())) if isinstance(value, Mapping) else value


def setting_key(setting):
    """A hashable key of a setting (gain mappings as sorted pairs)."""
    return tuple((key, _hashable(setting[key])) for key in OPTION_ORDER if key in setting)


def check_tools(tools, *, run):
    """``{name: setting}`` of ``tools`` (``None``: every preset)."""
    if tools is None:
        tools = [preset_label(name) for name in CONVENTIONS]
    if isinstance(tools, str):
        tools = [part.strip() for part in tools.split(",") if part.strip()]
    if isinstance(tools, Mapping):
        named = dict(tools)
    elif isinstance(tools, (list, tuple)):
        if not all(isinstance(spec, str) for spec in tools):
            raise TypeError(
                "tools given as a list must hold preset names (str); name mappings of "
                "options with a dict, e.g. tools={'mine': {'conventions': 'trec_eval', "
                "'max_docs': 100}}."
            )
        named = {spec: spec for spec in tools}
    else:
        raise TypeError(
            f"tools must be None, a list of preset names or a dict, got {short_repr(tools)}."
        )
    settings = {str(name): tool_setting(spec, run=run) for name, spec in named.items()}
    if len(settings) < 2:
        raise ValueError(f"tools={short_repr(tools)}: name at least two tools to compare.")
    return settings


def shown_value(value, *, code=False):
    """A setting's value as text: plain for tables (``average``, ``None``), or as code (the
    repr, floats in ``%g``) for the keyword arguments :func:`which_convention` prints."""
    if code:
        return f"{value:g}" if isinstance(value, float) else repr(value)
    return "None" if value is None else str(value)
