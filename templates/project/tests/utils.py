"""Helpers for comparing an op's output with its float64 reference."""

import torch

# Relative error budgets for a result rounded once to the dtype (plus accumulation slack).
RTOL = {
    torch.float64: 1e-12,
    torch.float32: 1e-5,
    torch.float16: 2e-3,
    torch.bfloat16: 1.6e-2,
}


def assert_matches_reference(
    out: torch.Tensor, ref: torch.Tensor, rtol: float | None = None
) -> None:
    """out (any float dtype) against a float64 reference: elementwise, and in relative norm.

    Elementwise, each value within tol of the reference, relative to its size (absolute for
    values near zero). In norm, ||out - ref|| <= tol * ||ref||: rounding errors spread over
    every element are caught even where each one alone passes.
    """
    assert out.shape == ref.shape, f"shape {tuple(out.shape)} != reference {tuple(ref.shape)}"
    tol = RTOL[out.dtype] if rtol is None else rtol
    got = out.detach().double().cpu()
    want = ref.detach().double().cpu()
    assert torch.equal(torch.isfinite(got), torch.isfinite(want)), "non-finite values differ"
    torch.testing.assert_close(got, want, rtol=tol, atol=tol, equal_nan=True)
    finite = torch.isfinite(want)
    error = torch.linalg.vector_norm(got[finite] - want[finite]).item()
    size = torch.linalg.vector_norm(want[finite]).item()
    assert error <= tol * size + tol, (
        f"relative norm error {error / max(size, 1e-300):.3g} > {tol:.3g}"
    )


def random_tensor(shape, dtype, device, contiguous=True) -> torch.Tensor:
    """Fresh normal samples; non-contiguous by slicing a wider tensor every other column."""
    if contiguous or len(shape) == 0:
        return torch.randn(shape, dtype=dtype, device=device)
    wide = torch.randn(*shape[:-1], 2 * shape[-1], dtype=dtype, device=device)
    view = wide[..., ::2]
    assert not view.is_contiguous() or view.numel() <= 1
    return view
