"""tf.VariableSynchronization / tf.VariableAggregation (devsession/variable_sync.py): the
enums with TF's members and values, kept by every variable, and TF's one rule that follows
from them: a variable synchronized ON_READ is not trainable unless trainable=True."""

import pytest

import devsession as ds

SYNC, AGG = ds.VariableSynchronization, ds.VariableAggregation


def test_the_members_and_values_are_tfs():
    assert [(m.name, m.value) for m in SYNC] == [("AUTO", 0), ("NONE", 1), ("ON_WRITE", 2),
                                                 ("ON_READ", 3)]
    assert [(m.name, m.value) for m in AGG] == [("NONE", 0), ("SUM", 1), ("MEAN", 2),
                                                ("ONLY_FIRST_REPLICA", 3)]


def test_a_variable_read_on_read_is_not_trainable_unless_asked():
    with ds.Graph().as_default():
        stat = ds.get_variable("stat", [2], synchronization=SYNC.ON_READ,
                               aggregation=AGG.SUM)
        asked = ds.get_variable("asked", [2], synchronization=SYNC.ON_READ, trainable=True)
        plain = ds.get_variable("plain", [2])
        local = ds.Variable(1.0, synchronization=SYNC.ON_READ, aggregation=AGG.MEAN)
        assert ds.trainable_variables() == [asked, plain]
        assert (stat.synchronization, stat.aggregation) == (SYNC.ON_READ, AGG.SUM)
        assert (plain.synchronization, plain.aggregation) == (SYNC.AUTO, AGG.NONE)
        assert (local.trainable, local.aggregation) == (False, AGG.MEAN)
        assert set(ds.global_variables()) == {stat, asked, plain, local}


def test_modes_given_by_value_are_taken_and_unknown_ones_refused():
    with ds.Graph().as_default():
        assert ds.Variable(1.0, aggregation=2).aggregation is AGG.MEAN
        with pytest.raises(ValueError, match="Invalid variable aggregation mode: mean for "
                                             "variable: w"):
            ds.get_variable("w", [1], aggregation="mean")
        with pytest.raises(ValueError, match="Invalid variable synchronization mode: 7"):
            ds.Variable(1.0, synchronization=7)


def test_getters_creators_and_partitions_see_the_modes():
    seen = {}

    def custom_getter(getter, name, *args, **kwargs):
        seen[name] = (kwargs["synchronization"], kwargs["aggregation"])
        return getter(name, *args, **kwargs)

    def creator(next_creator, **kwargs):
        seen["creator"] = (kwargs["synchronization"], kwargs["aggregation"])
        return next_creator(**kwargs)

    with ds.Graph().as_default():
        with ds.variable_scope("s", custom_getter=custom_getter), ds.variable_creator_scope(creator):
            v = ds.get_variable("v", [3], synchronization=SYNC.ON_READ, aggregation=AGG.SUM)
        parts = ds.get_variable("p", [4, 2], partitioner=ds.fixed_size_partitioner(2),
                                synchronization=SYNC.ON_READ, aggregation=AGG.MEAN)
        assert not v.trainable and v.aggregation is AGG.SUM
        assert [(p.synchronization, p.aggregation, p.trainable) for p in parts] == \
            [(SYNC.ON_READ, AGG.MEAN, False)] * 2
    assert seen == {"s/v": (SYNC.ON_READ, AGG.SUM), "creator": (SYNC.ON_READ, AGG.SUM)}
