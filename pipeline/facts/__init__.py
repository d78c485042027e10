"""Facts: the report tables computed from hands and scores.

The SQL of each report table lives in the module named after it (``player_facts``, ``pair_facts``,
``hand_facts``, ``declaration_facts``, ``dealt_events``, ``summary_points``); ``derived`` writes and
refreshes them, ``batch_facts`` computes the hand-level ones batch by batch inside the rescore's hand pass.
"""
