"""The grammar folder, installed as the package ``scalarlang.grammars`` (see pyproject.toml's
``package-dir``), so a wheel holds ``scalarlang/grammars/scalarlang.lark`` with no symlink in
the repository."""
