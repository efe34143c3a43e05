"""go.mod -> the RocketMQ Go client a module requires and its release (resolved or unknown with the reason)."""

from __future__ import annotations

from pathlib import Path

from rmqplan.sources.buildfiles import GO_REMOTING_MODULE, read_build_files, read_go_mod

V2 = GO_REMOTING_MODULE


def _read(tmp_path: Path, text: str):
    path = tmp_path / "go.mod"
    path.write_text(text, encoding="utf-8")
    problems: list = []
    return read_go_mod(path, problems), problems


def test_a_required_release_without_its_v(tmp_path):
    module, problems = _read(tmp_path, f"""// orders consumer
module github.com/acme/orders/v3

go 1.21

require (
\tgithub.com/sirupsen/logrus v1.8.1
\t{V2} v2.1.2 // the push consumer
)
""")
    assert problems == [] and module.build_system == "go"
    assert (module.name, module.name_origin.line) == ("orders", 2)  # the last element before a major version
    dep = module.client
    assert (dep.artifact, dep.version, dep.unknown, dep.origin.line, dep.grpc) == (V2, "2.1.2", "", 8, False)


def test_a_pseudo_version_an_indirect_one_and_a_quoted_path(tmp_path):
    module, _ = _read(tmp_path, f'module orders\nrequire "{V2}" v2.1.3-0.20251226070945-2173d070fd1b // indirect\n')
    assert (module.name, module.client.version) == ("orders", "2.1.3-0.20251226070945-2173d070fd1b")


def test_a_replace_decides_the_version(tmp_path):
    same = f"module m\nrequire {V2} v2.1.2\nreplace {V2} => {V2} v2.1.1\n"
    module, _ = _read(tmp_path, same)
    dep = module.client
    assert (dep.version, dep.via, dep.version_origin.line) == ("2.1.1", "replace", 3)
    module, _ = _read(tmp_path, f"module m\nrequire {V2} v2.1.2\nreplace (\n  {V2} v2.1.2 => ../rocketmq-client-go\n)\n")
    assert module.client.version is None
    assert module.client.unknown == "replaced by the local directory ../rocketmq-client-go: not a release's code"
    module, _ = _read(tmp_path, f"module m\nrequire {V2} v2.1.2\nreplace {V2} => github.com/acme/fork v2.1.5\n")
    assert (module.client.version, module.client.unknown) == (None, "replaced by github.com/acme/fork v2.1.5: "
                                                                     "another module's code")
    # a replace of another version of the client does not apply
    module, _ = _read(tmp_path, f"module m\nrequire {V2} v2.1.2\nreplace {V2} v2.0.0 => ../old\n")
    assert module.client.version == "2.1.2"


def test_the_grpc_client_and_the_cgo_binding_are_told_apart(tmp_path):
    module, _ = _read(tmp_path, "module m\nrequire github.com/apache/rocketmq-clients/golang/v5 v5.1.0\n")
    assert module.client.grpc and module.client.version == "5.1.0"
    module, _ = _read(tmp_path, "module m\nrequire github.com/apache/rocketmq-client-go v1.2.4\n")
    assert (module.client.artifact, module.client.version, module.client.grpc) == \
        ("github.com/apache/rocketmq-client-go", "1.2.4", False)
    module, _ = _read(tmp_path, "module m\nrequire github.com/apache/rocketmq-client-go/v2 latest\n")
    assert (module.client.version, module.client.unknown) == (None, "not a module version: 'latest'")


def test_a_module_without_a_client_and_unreadable_files(tmp_path):
    module, _ = _read(tmp_path, "module m\nrequire github.com/sirupsen/logrus v1.8.1\n")
    assert module.dependencies == [] and module.client is None
    path = tmp_path / "go.mod"
    path.write_bytes(b"module m\nrequire \xff\n")
    problems: list = []
    assert read_go_mod(path, problems) is None and "not UTF-8" in str(problems[0])


def test_read_build_files_finds_go_modules(tmp_path):
    (tmp_path / "svc").mkdir()
    (tmp_path / "svc" / "go.mod").write_text(f"module github.com/acme/svc\nrequire {V2} v2.1.2\n", encoding="utf-8")
    (tmp_path / "svc" / "main.go").write_text("package main\n", encoding="utf-8")
    index = read_build_files(tmp_path)
    assert [(m.name, m.client.version) for m in index.modules] == [("svc", "2.1.2")]
    assert index.module_of(tmp_path / "svc" / "main.go").name == "svc"


def test_a_go_modules_release_is_what_a_fleet_from_code_runs(tmp_path):
    from rmqplan.sources.from_code import _go_release

    module, _ = _read(tmp_path, f"module m\nrequire {V2} v2.1.1\n")
    release = _go_release(module)
    assert (release.value, release.known, release.source) == ("2.1.1", True, f"{tmp_path / 'go.mod'}:2 {V2}")
    module, _ = _read(tmp_path, f"module m\nrequire {V2} v2.1.2\nreplace {V2} => ../fork\n")
    assert (_go_release(module).value, _go_release(module).known) == ("2.1.2", False)
    assert "replaced by the local directory ../fork" in _go_release(module).source
    module, _ = _read(tmp_path, "module m\nrequire github.com/apache/rocketmq-clients/golang v5.0.0\n")
    assert _go_release(module) is None
