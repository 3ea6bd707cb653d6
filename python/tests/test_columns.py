"""wirespeed.classify(columns=...): the kept columns only, in the record's order whatever the
order named, each equal to the same column of the whole table (labels included: what a run
does not compute for the columns it drops changes nothing else); an unknown name is a
ValueError naming it."""

from __future__ import annotations

import pytest

from test_classify import classify, subset


def test_kept_columns_are_the_whole_tables(corpus):
    paths = subset(corpus)
    whole = classify(paths, workers=2)
    for cols in (
        ["proto", "src_ip", "flow_id", "ja4", "risks", "dst_port"],
        # Neither risks nor fingerprints: not computed, and the rest as it was.
        [n for n in whole.schema.names if n not in ("risks", "risk_score", "ja3c", "ja4", "hassh")],
        "flow_id, app",
    ):
        names = [n.strip() for n in cols.split(",")] if isinstance(cols, str) else cols
        order = [n for n in whole.schema.names if n in names]
        kept = classify(paths, workers=2, columns=cols)
        assert kept.schema.names == order
        assert kept.schema == whole.select(order).schema
        assert kept.to_pylist() == whole.select(order).to_pylist()


@pytest.mark.parametrize("bad", [["flow_id", "nosuch"], "flow_id,nosuch"])
def test_an_unknown_column_is_a_value_error_naming_it(corpus, bad):
    with pytest.raises(ValueError, match="nosuch"):
        classify(subset(corpus), columns=bad)


def test_a_column_of_a_group_not_asked_for_is_a_value_error(corpus):
    with pytest.raises(ValueError, match="community_id"):
        classify(subset(corpus), columns=["flow_id", "community_id"])
    table = classify(subset(corpus), columns=["flow_id", "community_id"], community_id=True)
    assert table.schema.names == ["flow_id", "community_id"]
