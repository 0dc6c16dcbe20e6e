"""Doctests of the user guide pages (``*.rst``) run with the test suite.

The Sphinx configuration and everything the build generates (API stubs, gallery pages, the
HTML output) are not test sources.
"""

collect_ignore = ["conf.py", "sg_execution_times.rst"]
collect_ignore_glob = ["_build/*", "api/*", "auto_examples/*", "_templates/*", "_ext/*"]
