"""Old public names keep working for one release: a module's ``__getattr__`` gives the class a
name of ``wordle_gym.utils.moved.RENAMED`` now has, with a warning that names it."""

from __future__ import annotations

import sys
import types
import warnings

import pytest

from wordle_gym.utils import moved


def test_renamed__an_old_name_is_the_new_class_with_a_warning(monkeypatch) -> None:
    module = types.ModuleType("fake_renamed")
    module.NewName = type("NewName", (), {})
    module.__getattr__ = lambda name: moved.renamed("fake_renamed", name)
    monkeypatch.setitem(sys.modules, "fake_renamed", module)
    monkeypatch.setitem(moved.RENAMED, "fake_renamed", {"OldName": "NewName"})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        from fake_renamed import OldName  # type: ignore[attr-defined]
    assert OldName is module.NewName
    assert [str(w.message) for w in caught if w.category is DeprecationWarning] == [
        f"fake_renamed.OldName is now fake_renamed.NewName; the old name goes in {moved.REMOVED_IN}"
    ]
    with pytest.raises(ImportError, match="Other"):
        from fake_renamed import Other  # type: ignore[attr-defined]  # noqa: F401


def test_renamed__every_new_name_is_its_modules_public_class() -> None:
    """Each rename in the table points at a class its module lists in ``__all__`` (checked in the
    source: the modules' extras need not be installed here)."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    for module, names in moved.RENAMED.items():
        tree = ast.parse((root / (module.replace(".", "/") + ".py")).read_text())
        classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
        exported = next(
            ast.literal_eval(node.value)
            for node in tree.body
            if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "__all__"
        )
        for old, new in names.items():
            assert new in classes and new in exported and old not in classes | set(exported)
