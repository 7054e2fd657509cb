"""Generated scripts and reports are byte-identical across the move of the presentation helpers (issue 24).

The digests were computed from the same inputs before ``lmdk/views.py``, ``report.py``, ``reproduce.py`` … moved
to :mod:`lmdk.present`; a change of what a script or report says must update them on purpose.
"""
from __future__ import annotations

import pytest

from present_golden import digest, outputs

BEFORE_THE_MOVE = {
    "schemes_script": "67772bca60c70d4399cde1b182b0a8bf650810a3dd2ff84ea1c7d50f1c5085cd",
    "schemes_script_file": "f7f71e04edc858cddd8c7425ca15b99a216a10193bd2850f1ed014f370db5e79",
    "tpl_script": "112b40ebe6698c3c0793de2fedb24e1357b9d4c3c990e47a847a2c76f2352cc1",
    "overview_script": "a3a537a644890a85035900df6e786234ffa6667bf41f0e21865ffa8f1dcdba60",
    "spatiotemporal_script": "8e522538343cfcd5fb216757ae42a8471aa83ebaacff080eadf67273a119cd7d",
    "dummies_script": "d9826f02f9572c1de6fd278301361e9a962ef504fb41d7957150fa8f4e97919e",
    "html_report": "cf5bb02728237d2b9cfbf0907776e292986be55fb4bb1bb3b21bad91c6f92539",
    "overview_report": "ca40b8d93e97e3f4841b6a03dc1ff7e03c4a4f60fa7dc8fcdbe5bed46578b67e",
    "spatiotemporal_report": "bb184e7fef0e75263312aebed5327f935c4f59cb5eff4959b6def211275bbeb7",
    "dummies_report": "6de8b48a687311cf7e8de9bde49e226f2b7af72f32767d143ab21f30e2a6b248",
}


@pytest.fixture(scope="module")
def generated() -> dict[str, str]:
    return outputs()


@pytest.mark.parametrize("name", sorted(BEFORE_THE_MOVE))
def test_generated_output_is_byte_identical(generated, name):
    assert digest(generated[name]) == BEFORE_THE_MOVE[name]
