"""Notebook 06: the three views of "it" (syntax, meaning, position) and the published head counts."""
import numpy as np

from attention_core.labs.nb06_multi_head_attention import pronoun_lab, published


def test_each_view_picks_its_candidate_and_together_they_pick_cat():
    r = pronoun_lab.resolve_it()
    assert r["syntax"].argmax() == 0 and r["semantics"].argmax() == 0 and r["position"].argmax() == 1
    assert r["all"][0] > r["all"][1] + 0.2                      # cat, clearly
    assert abs(r["no_semantics"][0] - r["no_semantics"][1]) < 0.15   # without meaning: nearly a tie


def test_views_table_in_both_languages(lang):
    table = pronoun_lab.views_table(lang=lang)
    assert table.values.shape == (5, 2) and table.col_names == ["cat", "mat"]


def test_published_head_widths_stay_64_or_128():
    models = published.published_models()
    assert {m["name"] for m in models} >= {"GPT-2 small", "BERT-base", "Llama-2-7B", "Llama-2-70B", "Mistral-7B"}
    table = published.head_table()
    assert set(table.values[:, 3].astype(int)) == {64, 128}
    assert "80" in repr(table)                                    # Llama-2-70B's 80 layers print whole
    by_name = {m["name"]: m for m in models}
    assert by_name["Llama-2-70B"]["kv_heads"] == 8 and by_name["Mistral-7B"]["kv_heads"] == 8
    assert np.all(table.values[:, 4] <= table.values[:, 2])
