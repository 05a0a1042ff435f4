"""The telephone line: 8 kHz narrowband, G.711 mu-law, and optional packet loss and jitter.

What a phone agent hears is not the caller's microphone but this: speech band-limited to 4 kHz,
companded to 8 bits per sample by G.711 mu-law (the PSTN and most VoIP trunks), cut into 20 ms
packets of which some are lost and some arrive too late for the receiver's jitter buffer. Lost
and late packets are concealed the simple way many endpoints do it — the previous packet is
repeated, attenuated, fading further with each consecutive loss — so losses smear words rather
than leaving clicks of silence.

The mu-law codec is implemented in numpy exactly per ITU-T G.711 (the reference linear-to-mu-law
conversion on 14-bit magnitudes, as in the widely used Sun g711.c), so code values match any
other implementation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from callbench.call.audio.signal import resample, to_pcm16
from callbench.call.audio.types import Audio

LINE_RATE = 8000
PACKET_SECONDS = 0.02
PACKET_SAMPLES = int(LINE_RATE * PACKET_SECONDS)  # 160 samples: one RTP packet at 20 ms ptime
# a concealed packet is the previous one played at this gain; consecutive losses fade out
CONCEALMENT_GAIN = 0.5

_BIAS = 0x84  # 132: the bias added to magnitudes, in 16-bit units
_CLIP = 8159  # the largest 14-bit magnitude before the bias (8159 + 33 = 8192 = out of range)
_SEGMENT_ENDS = np.array([0x3F, 0x7F, 0xFF, 0x1FF, 0x3FF, 0x7FF, 0xFFF, 0x1FFF])


def mulaw_encode(pcm: np.ndarray) -> np.ndarray:
    """G.711 mu-law codes (uint8) for 16-bit linear PCM values (any integer array).

    As in the reference: the 16-bit value is reduced to 14 bits, its magnitude clipped to 8159
    and biased by 33, the segment (exponent) is the first whose end is not below the magnitude,
    the four mantissa bits follow, and the code is stored complemented (so silence is 0xFF).
    """
    value = np.asarray(pcm, dtype=np.int32) >> 2
    negative = value < 0
    magnitude = np.minimum(np.where(negative, -value, value), _CLIP) + (_BIAS >> 2)
    segment = np.searchsorted(_SEGMENT_ENDS, magnitude, side="left")
    mantissa = (magnitude >> np.minimum(segment + 1, 8)) & 0xF
    code = np.where(segment >= 8, 0x7F, (np.minimum(segment, 7) << 4) | mantissa)
    mask = np.where(negative, 0x7F, 0xFF)
    return np.asarray((code ^ mask).astype(np.uint8))


def mulaw_decode(codes: np.ndarray) -> np.ndarray:
    """16-bit linear PCM values (int16) for G.711 mu-law codes: the centre of each code's
    interval, e.g. 0xFF and 0x7F -> 0, 0x80 -> 32124, 0x00 -> -32124."""
    u = ~np.asarray(codes, dtype=np.int32) & 0xFF
    t = (((u & 0x0F) << 3) + _BIAS) << ((u & 0x70) >> 4)
    return np.asarray(np.where(u & 0x80, _BIAS - t, t - _BIAS).astype(np.int16))


def mulaw_step(pcm: np.ndarray) -> np.ndarray:
    """The quantisation step of mu-law at each 16-bit value: 8 << segment (8 in the finest
    segment, 1024 in the coarsest), for the segment the encoder puts the value in."""
    value = np.asarray(pcm, dtype=np.int32) >> 2  # as the encoder: 14 bits first, then |.|
    magnitude = np.minimum(np.abs(value), _CLIP) + (_BIAS >> 2)
    segment = np.minimum(np.searchsorted(_SEGMENT_ENDS, magnitude, side="left"), 7)
    return np.asarray(8 << segment)


@dataclass(frozen=True)
class LineReport:
    """What the line did to one transmission: packets sent, lost in the network, and arrived
    too late for the jitter buffer (both concealed)."""

    packets: int
    lost: int
    late: int

    @property
    def concealed(self) -> int:
        return self.lost + self.late


@dataclass(frozen=True)
class Transmission:
    audio: Audio
    report: LineReport


@dataclass
class TelephoneLine:
    """A one-way telephone line.

    `loss` is the probability that a 20 ms packet is lost (independently per packet).
    `jitter_ms` is the mean of each packet's extra network delay (exponentially distributed, so
    most packets are early and a few very late); a packet whose extra delay exceeds the fixed
    jitter buffer `buffer_ms` arrives after its playout time and is dropped. With jitter_ms=20
    and the 60 ms buffer about 5% of packets are late (e^-3).
    """

    loss: float = 0.0
    jitter_ms: float = 0.0
    buffer_ms: float = 60.0

    def __post_init__(self) -> None:
        if not 0.0 <= self.loss <= 1.0:
            raise ValueError(f"packet loss must be a probability in [0, 1], got {self.loss}")
        if self.jitter_ms < 0 or self.buffer_ms < 0:
            raise ValueError("jitter and the jitter buffer must not be negative")
        self.last_report: LineReport | None = None

    def send(self, audio: Audio, rng: np.random.Generator) -> Transmission:
        """`audio` as received at the far end (8 kHz), with the report of what happened."""
        narrow = resample(audio, LINE_RATE)
        codes = mulaw_encode(to_pcm16(narrow))
        n = len(codes)
        count = -(-n // PACKET_SAMPLES)
        padded = np.full(count * PACKET_SAMPLES, 0xFF, dtype=np.uint8)
        padded[:n] = codes
        packets = mulaw_decode(padded).astype(np.float32).reshape(count, PACKET_SAMPLES) / 32768.0
        lost = rng.random(count) < self.loss if self.loss > 0 else np.zeros(count, dtype=bool)
        if self.jitter_ms > 0:
            delay = rng.exponential(self.jitter_ms, count)
            late = (delay > self.buffer_ms) & ~lost
        else:
            late = np.zeros(count, dtype=bool)
        missing = np.flatnonzero(lost | late)
        for index in missing:  # few packets; each depends on the (possibly concealed) one before
            previous = packets[index - 1] if index > 0 else np.zeros(PACKET_SAMPLES, np.float32)
            packets[index] = CONCEALMENT_GAIN * previous
        report = LineReport(packets=count, lost=int(lost.sum()), late=int(late.sum()))
        return Transmission(Audio(packets.reshape(-1)[:n].copy(), LINE_RATE), report)

    def transmit(self, audio: Audio, rng: np.random.Generator) -> Audio:
        """`audio` as received at the far end (8 kHz); the report is kept in `last_report`
        (use `send` for both at once when one line serves several threads)."""
        sent = self.send(audio, rng)
        self.last_report = sent.report
        return sent.audio
