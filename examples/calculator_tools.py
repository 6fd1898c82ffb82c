"""Tools for `dpt run --tool examples/calculator_tools.py`."""

from doc_processing_toolkit import tool


@tool
def calculate(a: float, b: float, operation: str = "add") -> float:
    """Perform a calculation.

    Args:
        a: First number
        b: Second number
        operation: One of 'add', 'subtract', 'multiply', 'divide'
    """
    if operation == "add":
        return a + b
    if operation == "subtract":
        return a - b
    if operation == "multiply":
        return a * b
    if operation == "divide":
        return a / b
    raise ValueError(f"unknown operation {operation!r}")
