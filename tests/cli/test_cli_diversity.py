"""``ltr-eval evaluate --qrels-format subtopics`` with ndeval's measures."""

import pytest

from sklearn_ltr_metrics._cli import main

QRELS = "1 1 a 1\n1 2 b 1\n1 2 c 0\n2 1 x 1\n"
RUN = "1 Q0 a 1 3.0 t\n1 Q0 b 2 2.0 t\n1 Q0 c 3 1.0 t\n2 Q0 y 1 1.0 t\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "r.txt").write_text(RUN)
    return str(tmp_path / "q.txt"), str(tmp_path / "r.txt")


def test_subtopic_qrels_in_the_trec_layout(files, capsys):
    qrels, run = files
    args = ["evaluate", "--qrels", qrels, "--run", run, "--qrels-format", "subtopics"]
    main([*args, "--metrics", "alpha_nDCG@5,map,StRecall@1", "--format", "trec", "--per-query"])
    lines = [line.split() for line in capsys.readouterr().out.splitlines()]
    # Query 1: a (subtopic 1) then b (subtopic 2) is the ideal; query 2 retrieves nothing
    # relevant.
    assert ["alpha_nDCG@5", "1", "1.0000"] in lines
    assert ["alpha_nDCG@5", "2", "0.0000"] in lines
    assert ["StRecall@1", "1", "0.5000"] in lines
    assert ["map", "all", "0.5000"] in lines


def test_unknown_name_still_listed(files, capsys):
    qrels, run = files
    with pytest.raises(SystemExit):
        main(["evaluate", "--qrels", qrels, "--run", run, "--metrics", "alpha_ndgc@5"])
    assert "not a known metric" in capsys.readouterr().err
