"""Type stub of the compiled module (Cython): its functions read as Any to type checkers."""

from typing import Any

def __getattr__(name: str) -> Any: ...
