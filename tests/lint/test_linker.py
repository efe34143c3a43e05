"""The linker on hand-built facts: constants across files, placeholders, destinations, cycles, ambiguity."""

from __future__ import annotations

import dataclasses

import pytest

from rmqlint.facts import ClientFact, ConfigEntry, FileFacts, Location, ProducedTag, Setting, Subscription
from rmqlint.frontends.python import absolute_module as _absolute_module
from rmqlint.linker import Linker
from rmqlint.text import canonical_key, module_of
from rmqlint.values import Concat, ConstRef, Dynamic, Lit, Placeholder, parse_spring_string


def loc(path: str, line: int = 1) -> Location:
    return Location(path, line, 1, line, 2)


def java(path, package="", classes=(), constants=None, clients=(), produced=()) -> FileFacts:
    return FileFacts(path, "java", clients=list(clients), produced=list(produced), constants=dict(constants or {}),
                     classes=list(classes), package=package)


def py(path, constants=None, clients=()) -> FileFacts:
    return FileFacts(path, "python", clients=list(clients), constants=dict(constants or {}))


def spring(path, **entries) -> FileFacts:
    config = [ConfigEntry(k.replace("__", "."), parse_spring_string(v), loc(path, i + 1))
              for i, (k, v) in enumerate(entries.items())]
    return FileFacts(path, "yaml", config=config)


def consumer_with(path: str, instance_name) -> FileFacts:
    client = ClientFact("push_consumer", "java", loc(path), instance_name=Setting(instance_name, loc(path, 5)))
    return FileFacts(path, "java", clients=[client], package="com.app")


def resolved_name(*files: FileFacts, user: FileFacts) -> object:
    everything = {f.path: f for f in (*files, user)}
    project = Linker(everything).link()
    return project.files[user.path].clients[0].instance_name.value


def jref(*scopes, name="NAME"):
    return ConstRef("java", tuple(scopes), name)


class TestJavaConstants:
    def test_simple_class_name_across_files(self):
        consts = java("a/MqNames.java", "com.app", ["MqNames"], {"MqNames.NAME": Lit("billing")})
        user = consumer_with("a/C.java", jref("MqNames"))
        assert resolved_name(consts, user=user) == Lit("billing")

    def test_chain_concat_and_interface_constant(self):
        base = java("a/Base.java", "com.app", ["Base"], {"Base.PREFIX": Lit("order-")})
        names = java("a/Names.java", "com.app", ["Names"],
                     {"Names.NAME": Concat((jref("Base", name="PREFIX"), Lit("worker")))})
        # The frontend lists candidate scopes in lookup order: the class itself misses, the interface has it.
        user = consumer_with("a/C.java", jref("Missing", "Names"))
        assert resolved_name(base, names, user=user) == Lit("order-worker")

    def test_fully_qualified_picks_the_package(self):
        one = java("x/Names.java", "com.x", ["Names"], {"Names.NAME": Lit("x")})
        two = java("y/Names.java", "com.y", ["Names"], {"Names.NAME": Lit("y")})
        assert resolved_name(one, two, user=consumer_with("a/C.java", jref("com.y.Names"))) == Lit("y")

    def test_nested_class(self):
        outer = java("a/Outer.java", "com.app", ["Outer", "Inner"], {"Inner.NAME": Lit("nested")})
        assert resolved_name(outer, user=consumer_with("a/C.java", jref("com.app.Outer.Inner"))) == Lit("nested")

    def test_ambiguous_simple_name_prefers_own_package_else_dynamic(self):
        same = java("app/Names.java", "com.app", ["Names"], {"Names.NAME": Lit("mine")})
        other = java("lib/Names.java", "com.lib", ["Names"], {"Names.NAME": Lit("theirs")})
        assert resolved_name(same, other, user=consumer_with("app/C.java", jref("Names"))) == Lit("mine")
        third = java("z/Names.java", "com.z", ["Names"], {"Names.NAME": Lit("z")})
        user = dataclasses.replace(consumer_with("q/C.java", jref("Names")), package="com.q")
        value = resolved_name(other, third, user=user)
        assert isinstance(value, Dynamic) and "different values" in value.reason

    def test_cycle_is_dynamic(self):
        a = java("A.java", "", ["A"], {"A.NAME": jref("B")})
        b = java("B.java", "", ["B"], {"B.NAME": jref("A")})
        value = resolved_name(a, b, user=consumer_with("C.java", jref("A")))
        assert isinstance(value, Dynamic) and "cycle" in value.reason

    def test_missing_constant_is_dynamic(self):
        value = resolved_name(user=consumer_with("C.java", jref("MixAll", name="DEFAULT")))
        assert isinstance(value, Dynamic) and "MixAll.DEFAULT" in value.reason


class TestPythonConstants:
    def test_module_constant_via_src_layout_and_reexport_chain(self):
        settings = py("src/pkg/settings.py", {"NAME": Concat((Lit("w-"), Lit("1")))})
        init = py("src/pkg/__init__.py", {"NAME": ConstRef("python", ("pkg.settings",), "NAME")})
        client = ClientFact("push_consumer", "python5", loc("app.py"),
                            instance_name=Setting(ConstRef("python", ("pkg",), "NAME"), loc("app.py")))
        project = Linker({f.path: f for f in (settings, init, py("app.py", clients=[client]))}).link()
        assert project.files["app.py"].clients[0].instance_name.value == Lit("w-1")

    @pytest.mark.parametrize(
        "scope, path, expected",
        [
            (".settings", "pkg/app.py", "pkg.settings"),
            ("..conf", "pkg/sub/app.py", "pkg.conf"),
            (".", "pkg/__init__.py", "pkg"),
            ("...x", "pkg/app.py", None),
            ("abs.mod", "pkg/app.py", "abs.mod"),
        ],
    )
    def test_relative_imports(self, scope, path, expected):
        assert _absolute_module(scope, path) == expected

    def test_module_of(self):
        assert module_of("a/b/c.py") == "a.b.c"
        assert module_of("a/b/__init__.py") == "a.b"


class TestPlaceholders:
    def resolve(self, text: str, *configs: FileFacts):
        user = consumer_with("C.java", parse_spring_string(text))
        return resolved_name(*configs, user=user)

    def test_relaxed_binding(self):
        cfg = spring("application.yml", rocketmq__consumer__instance_name="fixed")
        assert canonical_key("rocketmq.consumer.instance-name") == canonical_key("rocketmq.consumer.instanceName")
        assert self.resolve("${rocketmq.consumer.instanceName}", cfg) == Lit("fixed")
        assert self.resolve("${rocketmq.consumer.instance-name}", cfg) == Lit("fixed")

    def test_default_when_missing_and_nested_values(self):
        cfg = spring("application.properties", app__prefix="svc", app__name="${app.prefix}-a")
        assert self.resolve("${nope:fallback}", cfg) == Lit("fallback")
        assert self.resolve("${app.name}-x", cfg) == Lit("svc-a-x")

    @pytest.mark.parametrize("text", ["${HOSTNAME}", "${HOSTNAME:box}", "${random.uuid}", "${spring.cloud.client.ip-address}",
                                      "${not.set}", "prefix-${POD_NAME:p}"])
    def test_runtime_and_unset_keys_are_dynamic(self, text):
        assert isinstance(self.resolve(text, spring("application.yml", other="1")), Dynamic)

    def test_profiles_that_disagree_are_dynamic_agreeing_ones_are_not(self):
        base = spring("application.yml", name="a")
        same = spring("application-prod.yml", name="a")
        other = spring("application-dev.yml", name="b")
        assert self.resolve("${name}", base, same) == Lit("a")
        assert isinstance(self.resolve("${name}", base, other), Dynamic)

    def test_placeholder_cycle_is_dynamic(self):
        cfg = spring("application.yml", a="${b}", b="${a}")
        assert isinstance(self.resolve("${a}", cfg), Dynamic)

    def test_project_config_holds_resolved_keys(self):
        cfg = spring("application.yml", rocketmq__name_server="ns:9876", x="${HOSTNAME}")
        project = Linker({cfg.path: cfg}).link()
        assert project.config == {"rocketmq.nameserver": "ns:9876"}


class TestProducedAndSubscriptions:
    def test_subscription_and_tag_values(self):
        consts = java("T.java", "", ["T"], {"T.TOPIC": Lit("orders"), "T.TAG": Lit("paid")})
        client = ClientFact("push_consumer", "java", loc("C.java"),
                            subscriptions=[Subscription(jref("T", name="TOPIC"), jref("T", name="TAG"), "TAG", loc("C.java"))])
        produced = ProducedTag(jref("T", name="TOPIC"), Concat((Lit("P"), jref("T", name="TAG"))), loc("C.java", 9))
        facts = java("C.java", clients=[client], produced=[produced])
        project = Linker({f.path: f for f in (consts, facts)}).link()
        sub = project.files["C.java"].clients[0].subscriptions[0]
        assert (sub.topic, sub.expression) == (Lit("orders"), Lit("paid"))
        tag = project.files["C.java"].produced[0]
        assert (tag.topic, tag.tag) == (Lit("orders"), Lit("Ppaid"))

    @pytest.mark.skipif("destination" not in {f.name for f in dataclasses.fields(ProducedTag)},
                        reason="ProducedTag.destination not in the facts yet")
    @pytest.mark.parametrize(
        "destination, topic, tag",
        [
            (Lit("orders:paid:x"), Lit("orders"), Lit("paid:x")),
            (Lit("orders"), Lit("orders"), Lit("")),
            (Concat((Lit("orders:"), Dynamic("call"))), Lit("orders"), Dynamic("call")),
            (Concat((Dynamic("call"), Lit(":t"))), Dynamic("call"), Dynamic("call")),
            (Placeholder("dest"), Lit("o"), Lit("t")),
        ],
    )
    def test_template_destination_is_split_after_resolution(self, destination, topic, tag):
        cfg = spring("application.yml", dest="o:t")
        produced = ProducedTag(Dynamic("destination"), Dynamic("destination"), loc("S.java"), destination=destination)
        project = Linker({cfg.path: cfg, "S.java": java("S.java", produced=[produced])}).link()
        got = project.files["S.java"].produced[0]
        assert (got.topic, got.tag) == (topic, tag)


class TestJavaImports:
    def test_single_type_import_decides_between_same_simple_names(self):
        one = java("x/Names.java", "com.x", ["Names"], {"Names.NAME": Lit("x")})
        two = java("y/Names.java", "com.y", ["Names"], {"Names.NAME": Lit("y")})
        user = consumer_with("a/C.java", jref("Names"))
        user.imports = {"Names": "com.y.Names"}
        assert resolved_name(one, two, user=user) == Lit("y")

    def test_import_of_an_outer_class_qualifies_a_nested_reference(self):
        outer = java("x/Outer.java", "com.x", ["Outer", "Inner"], {"Inner.NAME": Lit("in")})
        decoy = java("y/Outer.java", "com.y", ["Outer", "Inner"], {"Inner.NAME": Lit("decoy")})
        user = consumer_with("a/C.java", jref("Outer.Inner"))
        user.imports = {"Outer": "com.x.Outer"}
        assert resolved_name(outer, decoy, user=user) == Lit("in")


class TestConfigScopes:
    @pytest.mark.parametrize(
        "path, scope",
        [
            ("application.yml", ""),
            ("config/application.yml", ""),
            ("src/main/resources/application.yml", ""),
            ("svc/src/main/resources/application-prod.yml", "svc"),
            ("svc/src/main/resources/config/application.yml", "svc"),
            ("svc/src/test/resources/application.yml", "svc/src/test"),
            ("apps/a/application.properties", "apps/a"),
        ],
    )
    def test_scope_of_a_config_file(self, path, scope):
        from rmqlint.linker import config_scope

        assert config_scope(path) == scope

    def test_each_service_resolves_against_its_own_configuration(self):
        a = spring("a/src/main/resources/application.yml", name="alpha")
        b = spring("b/src/main/resources/application.yml", name="beta")
        tests = spring("a/src/test/resources/application.yml", name="test-only")
        user_a = consumer_with("a/src/main/java/C.java", parse_spring_string("${name}"))
        user_b = consumer_with("b/src/main/java/C.java", parse_spring_string("${name}"))
        user_c = consumer_with("c/src/main/java/C.java", parse_spring_string("${name:fallback}"))
        project = Linker({f.path: f for f in (a, b, tests, user_a, user_b, user_c)}).link()
        value = lambda path: project.files[path].clients[0].instance_name.value  # noqa: E731
        assert value(user_a.path) == Lit("alpha")
        assert value(user_b.path) == Lit("beta")
        # c has no configuration of its own: a library the applications run, and a and b set the key differently.
        assert isinstance(value(user_c.path), Dynamic)
        services = Linker({f.path: f for f in (a, tests, user_c, spring("c/src/main/resources/application.yml",
                                                                        other="1"))}).link()
        assert services.files[user_c.path].clients[0].instance_name.value == Lit("fallback")  # a's key is not c's

    def test_a_library_module_runs_with_the_configuration_of_the_one_application_setting_the_key(self):
        app = spring("app/src/main/resources/application.yml", name="alpha")
        tests = spring("lib/src/test/resources/application.yml", name="test-only")
        user = consumer_with("lib/src/main/java/C.java", parse_spring_string("${name:fallback}"))
        project = Linker({f.path: f for f in (app, tests, user)}).link()
        assert project.files[user.path].clients[0].instance_name.value == Lit("alpha")


def test_every_setting_of_a_client_is_resolved_whatever_its_name():
    """A new `Setting` field of `ClientFact` is resolved without a change to the linker."""
    import typing

    from rmqlint.facts import ClientFact, FileFacts, Location, Setting
    from rmqlint.linker import SETTING_FIELDS, Linker
    from rmqlint.values import Lit, Placeholder

    where = Location("A.java", 1, 1, 1, 2)
    hints = typing.get_type_hints(ClientFact)
    fields = [name for name, hint in hints.items() if Setting in typing.get_args(hint)]
    assert set(fields) == set(SETTING_FIELDS) and "instance_name" in fields
    client = ClientFact("push_consumer", "java", where,
                        **{name: Setting(Placeholder("k", Lit("v")), where) for name in fields})
    project = Linker({"A.java": FileFacts("A.java", "java", clients=[client])}).link()
    (linked,) = project.files["A.java"].clients
    assert all(getattr(linked, name).value == Lit("v") for name in fields)
