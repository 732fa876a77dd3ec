"""Routines: a solved task kept so that it runs again without a model — learnt from a successful run, stored
beside the run history, replayed step by step with each target found by identity and each effect checked, and
handed to the agent where the phone no longer matches (the agent's fix then becomes the routine's next version).

The modules: ``model`` (the data), ``identity`` and ``effects`` (what a step is and did), ``learn`` (a run into a
routine), ``codec``/``yaml_format``/``store`` (keeping it), ``matching`` (a typed task to a routine), ``replay``
(running it), ``service`` (what every front end does around a run), ``commands`` (the command line).
"""
