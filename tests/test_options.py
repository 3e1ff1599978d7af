"""Name validation: every bad name is a one-line usage error before anything is written."""

import random
import string

import pytest

from kernelgen.catalog import installed
from kernelgen.errors import InvalidInput
from kernelgen.options import (
    KernelChoice,
    ProjectOptions,
    compute_capability,
    default_package_name,
    parse_arch_list,
    validate_kernel_name,
    validate_namespace,
    validate_op_name,
    validate_package_name,
)


@pytest.mark.parametrize(
    ("directory", "package"),
    [
        ("myops", "myops"),
        ("my-ops", "my_ops"),
        ("path/to/my.ops", "my_ops"),
        ("fast-ops.v2", "fast_ops_v2"),
    ],
)
def test_default_package_name_from_directory(directory, package):
    assert default_package_name(directory) == package


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "must not be empty"),
        ("2fast", "not a valid identifier"),
        ("my ops", "not a valid identifier"),
        ("ops/x", "path separators"),
        ("..", "path separators"),
        ("class", "Python keyword"),
        ("template", r"C\+\+ keyword"),
        ("__init__", "dunder"),
        ("torch", "shadow"),
        ("json", "shadow"),
        ("std", "shadow"),
        ("naïve", "not a valid identifier"),
        ("p" * 41, "is 41 characters long; the most is 40"),
    ],
)
def test_bad_package_names_are_refused(name, message):
    with pytest.raises(InvalidInput, match=message):
        validate_package_name(name)


@pytest.mark.parametrize("name", ["aten", "prim", "torch", "while", "a-b"])
def test_bad_namespaces_are_refused(name):
    with pytest.raises(InvalidInput):
        validate_namespace(name)


def test_names_longer_than_40_characters_are_refused():
    for validate in (validate_package_name, validate_namespace, validate_kernel_name):
        with pytest.raises(InvalidInput, match="is 41 characters long; the most is 40"):
            validate("k" * 41)


@pytest.mark.parametrize("name", ["ops", "csrc", "_private", "delete", "def", "x.y", "__call__"])
def test_bad_op_names_are_refused(name):
    with pytest.raises(InvalidInput):
        validate_op_name(name)


def test_good_names_pass():
    validate_package_name("my_ops2")
    validate_namespace("my_ops2")
    validate_package_name("p" * 40)
    validate_kernel_name("k" * 40)
    validate_op_name("fused_gelu")


def test_kernel_choice_parsing_and_resolution():
    assert KernelChoice.parse("activation") == KernelChoice("activation", None)
    assert KernelChoice.parse("activation=my_gelu") == KernelChoice("activation", "my_gelu")
    silu = installed().resolve(KernelChoice.parse("activation"))
    assert (silu.name, silu.ops, silu.choice) == (
        "silu",
        ("silu", "silu_backward"),
        KernelChoice("activation", "silu"),
    )
    with pytest.raises(InvalidInput, match="unknown kernel template 'conv'"):
        installed().resolve(KernelChoice.parse("conv"))


def test_all_cross_kernel_checks_happen_in_one_place():
    catalog = installed()
    clashes = [
        (("vector_add", None), ("vector_add", None), "already defined"),
        (("activation", "x"), ("vector_add", "x_backward"), "op name 'x_backward'"),
        (("vector_add", "ops"), None, "reserved"),
    ]
    for first, second, says in clashes:
        kernels = tuple(KernelChoice(*k) for k in (first, second) if k is not None)
        with pytest.raises(InvalidInput, match=says) as refused:
            catalog.resolve_all(ProjectOptions("p", "p", kernels))
        assert refused.value.option == "kernels" and "--" not in refused.value.message


def test_arch_list_forms():
    assert parse_arch_list(["8.0;9.0", "9.0a", "8.6+PTX"]) == ("8.0", "9.0", "9.0a", "8.6+PTX")
    with pytest.raises(InvalidInput, match="compute capability"):
        ProjectOptions("p", "p", (KernelChoice("vector_add", "vector_add"),), arch_list=("sm_90",))


def test_compute_capability_orders_architectures_by_number_not_text():
    assert compute_capability("9.0a") == compute_capability("9.0+PTX") == (9, 0)
    assert sorted(["10.0", "8.6", "9.0a", "12.1"], key=compute_capability) == [
        "8.6",
        "9.0a",
        "10.0",
        "12.1",
    ]


def test_distribution_defaults_to_dashed_package():
    options = ProjectOptions("my_ops", "my_ops", (KernelChoice("vector_add", "vector_add"),))
    assert options.distribution == "my-ops"


def test_random_names_either_pass_or_fail_cleanly():
    """Any string is either a usable name or an InvalidInput, never another exception."""
    rng = random.Random(1234)
    alphabet = string.ascii_letters + string.digits + "_-./\\ \t\n$é漢\x00:"
    for _ in range(3000):
        name = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        for validate in (validate_package_name, validate_namespace, validate_op_name):
            try:
                validate(name)
            except InvalidInput as error:
                assert "\n" not in str(error.message).strip()
            else:
                assert name.isidentifier() and name.isascii()
