"""A one-line description of the machine a benchmark ran on."""

from __future__ import annotations

import os
import platform

import torch


def describe(device: torch.device) -> str:
    """E.g. "NVIDIA H100 80GB HBM3, torch 2.13.0+cu128" or "Intel Xeon ... (2 cores), torch 2.13.0+cpu"."""
    if device.type == "cuda":
        return f"{torch.cuda.get_device_name(device)}, torch {torch.__version__}"
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="ignore") as handle:
            names = [line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")]
        cpu = names[0] if names else cpu
    except OSError:
        pass
    return f"{cpu} ({os.cpu_count()} cores, {torch.get_num_threads()} torch threads), torch {torch.__version__}"
