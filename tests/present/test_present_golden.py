"""Generated scripts and reports are byte-identical across the move of the presentation helpers (issue 24).

The digests were computed from the same inputs before ``lmdk/views.py``, ``report.py``, ``reproduce.py`` … moved
to :mod:`lmdk.present` (and passed unchanged after the move, commit d7aa48c); a change of what a script or report
says must update them on purpose. Updated since: the neighbouring relation (issue 25) adds ``relation`` to every
RunConfig and passes its options (Δ, sampler, range) in the temporal-loss and dummy scripts; the planner (issue 27)
adds ``target`` to every RunConfig; the reports were changed for printing (issue 28): sections, print CSS and the
script that draws each chart's printed picture; the dummies script prints each MAE's 95 % CI;
every RunConfig records its ``view`` (a window / aggregation of the data) and scripts take ``config.view_of(full)``;
the temporal-loss and dummy scripts name what ε protects as ``protects=lmdk.relation.…`` (issue 32) instead of
``**config.relation_options()`` (same draws for the same seed).
"""
from __future__ import annotations

import pytest
from present_golden import digest, outputs

BEFORE_THE_MOVE = {
    "schemes_script": "409b6023b6333ec2967b501c8e141a58e4f3a2bfea1c3570ee633bfcfe7caf21",
    "schemes_script_file": "29dece01b10071c49a3d562f35f5c4df28c6c7741fa01fcfecdf2d1e4cd38771",
    "tpl_script": "cb4759ed5ac8b1d5b0ec62fb99082d623cf4cab180d42c189fa846563ed2a83d",
    "overview_script": "a3a537a644890a85035900df6e786234ffa6667bf41f0e21865ffa8f1dcdba60",
    "spatiotemporal_script": "8e522538343cfcd5fb216757ae42a8471aa83ebaacff080eadf67273a119cd7d",
    "dummies_script": "7dfcc149419c99b32bd9d8974b0903115c3c61076014e252c539746bbe5df761",
    "html_report": "508695b466e14cd6f3d638a3789a945abe79b15741bf000800a140c4b68a3a8f",
    "overview_report": "2d72ee2c4c1622610a54da12ef123c5e2488cc6ce44f810f965c924d6f83260d",
    "spatiotemporal_report": "a8b4c20c51ed11e57972fe30b3f8e318d5829c38170e4ce27f974dfeb7b3af2f",
    "dummies_report": "49f6640663de60562252cfeee68be91ddcd6634a630f29e90a3732087f9e8bb1",
}


@pytest.fixture(scope="module")
def generated() -> dict[str, str]:
    return outputs()


@pytest.mark.parametrize("name", sorted(BEFORE_THE_MOVE))
def test_generated_output_is_byte_identical(generated, name):
    assert digest(generated[name]) == BEFORE_THE_MOVE[name]
