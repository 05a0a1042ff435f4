"""The telephone line: G.711 mu-law against the reference algorithm, packet loss and jitter."""

from __future__ import annotations

import numpy as np
import pytest

from callbench.call.audio.line import (
    LINE_RATE,
    PACKET_SAMPLES,
    TelephoneLine,
    mulaw_decode,
    mulaw_encode,
    mulaw_step,
)
from callbench.call.audio.types import Audio


def reference_linear2ulaw(pcm_val: int) -> int:
    """A line-by-line transcription of linear2ulaw() from Sun's g711.c (the G.711 reference
    most codecs copy), scalar, for checking the vectorised encoder."""
    seg_uend = [0x3F, 0x7F, 0xFF, 0x1FF, 0x3FF, 0x7FF, 0xFFF, 0x1FFF]
    pcm_val = pcm_val >> 2
    if pcm_val < 0:
        pcm_val = -pcm_val
        mask = 0x7F
    else:
        mask = 0xFF
    if pcm_val > 8159:
        pcm_val = 8159
    pcm_val += 0x84 >> 2
    seg = next((i for i, end in enumerate(seg_uend) if pcm_val <= end), 8)
    if seg >= 8:
        return 0x7F ^ mask
    return ((seg << 4) | ((pcm_val >> (seg + 1)) & 0xF)) ^ mask


def reference_ulaw2linear(u_val: int) -> int:
    u_val = ~u_val & 0xFF
    t = ((u_val & 0x0F) << 3) + 0x84
    t <<= (u_val & 0x70) >> 4
    return 0x84 - t if u_val & 0x80 else t - 0x84


def test_known_code_values() -> None:
    codes = mulaw_encode(np.array([0, 32767, -32768, -1, 100, -100]))
    assert codes[0] == 0xFF  # silence
    assert codes[1] == 0x80 and codes[2] == 0x00  # full scale, positive and negative
    decoded = mulaw_decode(np.array([0xFF, 0x7F, 0x80, 0x00, 0xF0, 0x70], dtype=np.uint8))
    assert decoded.tolist() == [0, 0, 32124, -32124, 120, -120]


def test_encoder_matches_the_reference_for_every_16_bit_value() -> None:
    pcm = np.arange(-32768, 32768)
    expected = np.array([reference_linear2ulaw(int(v)) for v in pcm[::7]])
    assert np.array_equal(mulaw_encode(pcm[::7]), expected)
    # and at every segment boundary exactly
    edges = np.array([(end - 33) * 4 + d for end in (0x3F, 0x7F, 0xFF, 0x1FF) for d in (-1, 0, 4)])
    edges = np.concatenate([edges, -edges])
    assert mulaw_encode(edges).tolist() == [reference_linear2ulaw(int(v)) for v in edges]


def test_decoder_matches_the_reference_for_all_256_codes() -> None:
    codes = np.arange(256, dtype=np.uint8)
    assert mulaw_decode(codes).tolist() == [reference_ulaw2linear(int(c)) for c in codes]


def test_round_trip_error_is_within_the_mu_law_step() -> None:
    pcm = np.arange(-32124, 32125, 3)
    back = mulaw_decode(mulaw_encode(pcm)).astype(np.int32)
    error = np.abs(back - pcm)
    assert np.all(error <= mulaw_step(pcm))
    # and typically about half a step: the decoder returns an interval's centre
    assert np.mean(error / mulaw_step(pcm)) < 0.4
    # encode(decode(c)) is the identity on codes (up to the two zeros)
    codes = np.arange(256, dtype=np.uint8)
    again = mulaw_encode(mulaw_decode(codes))
    assert np.array_equal(again[codes != 0x7F], codes[codes != 0x7F])


def speech_like(seconds: float = 2.0, rate: int = 16000) -> Audio:
    t = np.arange(int(seconds * rate)) / rate
    tone = 0.4 * np.sin(2 * np.pi * 440 * t) * (0.6 + 0.4 * np.sin(2 * np.pi * 3 * t))
    return Audio(tone.astype(np.float32), rate)


def test_clean_line_is_8_khz_and_close_to_the_input() -> None:
    audio = speech_like()
    line = TelephoneLine()
    out = line.transmit(audio, np.random.default_rng(0))
    assert out.rate == LINE_RATE and len(out.samples) == 2 * LINE_RATE
    assert line.last_report is not None and line.last_report.concealed == 0
    assert line.last_report.packets == 2 * LINE_RATE // PACKET_SAMPLES
    reference = speech_like(rate=LINE_RATE).samples
    snr = 10 * np.log10(np.sum(reference**2) / np.sum((out.samples - reference) ** 2))
    assert snr > 30  # mu-law gives ~38 dB SQNR on speech-level signals


def test_line_removes_content_above_4_khz() -> None:
    t = np.arange(16000) / 16000
    out = TelephoneLine().transmit(
        Audio((0.5 * np.sin(2 * np.pi * 6000 * t)).astype(np.float32), 16000),
        np.random.default_rng(0),
    )
    assert np.sqrt(np.mean(out.samples**2)) < 0.01


def test_packet_loss_is_concealed_by_attenuated_repetition_and_reported() -> None:
    audio = speech_like(10.0)
    clean = TelephoneLine().send(audio, np.random.default_rng(1)).audio.samples
    sent = TelephoneLine(loss=0.1).send(audio, np.random.default_rng(1))
    report = sent.report
    assert report.packets == 500 and report.late == 0
    assert 30 <= report.lost <= 70  # ~10% of 500
    packets = sent.audio.samples.reshape(-1, PACKET_SAMPLES)
    clean_packets = clean.reshape(-1, PACKET_SAMPLES)
    differs = np.flatnonzero(np.any(packets != clean_packets, axis=1))
    assert len(differs) == report.lost
    for index in differs:
        if index > 0:
            assert np.allclose(packets[index], 0.5 * packets[index - 1])
    # same seed, same losses
    again = TelephoneLine(loss=0.1).send(audio, np.random.default_rng(1))
    assert np.array_equal(again.audio.samples, sent.audio.samples)


def test_jitter_beyond_the_buffer_drops_late_packets() -> None:
    audio = speech_like(10.0)
    calm = TelephoneLine(jitter_ms=5.0).send(audio, np.random.default_rng(2)).report
    rough = TelephoneLine(jitter_ms=30.0).send(audio, np.random.default_rng(2)).report
    assert calm.late == 0 and calm.lost == 0  # P(late) = e^-12
    # exponential delays with mean 30 ms against a 60 ms buffer: e^-2 = 13.5% late
    assert 40 <= rough.late <= 100
    assert (
        TelephoneLine(jitter_ms=30.0, buffer_ms=1000.0)
        .send(audio, np.random.default_rng(2))
        .report.late
        == 0
    )


def test_invalid_line_settings_fail() -> None:
    with pytest.raises(ValueError, match="probability"):
        TelephoneLine(loss=1.5)
    with pytest.raises(ValueError, match="negative"):
        TelephoneLine(jitter_ms=-1.0)
