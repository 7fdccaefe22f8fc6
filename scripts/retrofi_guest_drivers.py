"""The device IDs the guest resolves to the backported vendor drivers.

In:  tests/guest/fixtures/driver-aliases (lines "MODULE BUS VENDOR:DEVICE",
     e.g. "mt7921e pci 14c3:7961"; each driver family adds its lines in the same
     format) and what a build made: its modules (.ko paths) and what its
     configuration switched off, with the reason (BuildResult.off).
Out: the guest's /etc/retrofi-driver-aliases: the lines of every module the
     build made, verbatim, and for each other module a comment saying why
     the guest does not check it ("off: <config.h's reason>", or "not
     selected by this build's configuration"); modalias() makes the string
     the bus core would, as tests/guest/init does.

A malformed line stops with an error naming the file, the line and the fix:
a typo must not turn a check into nothing.
"""

import dataclasses
import os
import re

from retrofi_errors import RetrofiError

FIXTURE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                       "tests", "guest", "fixtures", "driver-aliases")
BUSES = ("pci", "usb", "sdio")
LINE_RE = re.compile(r"^([A-Za-z0-9_-]+)\s+([a-z]+)\s+([0-9a-fA-F]{4}):([0-9a-fA-F]{4})$")


@dataclasses.dataclass(frozen=True)
class DeviceId:
    module: str
    bus: str
    vendor: str      # 4 hex digits, lower case
    device: str
    line: int

    @property
    def text(self):
        return f"{self.module} {self.bus} {self.vendor}:{self.device}"


def parse(path=FIXTURE):
    """The IDs of the file, in order; RetrofiError on a malformed line."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise RetrofiError(f"cannot read the driver ID list: {e.strerror}", where=path,
                           fix="restore tests/guest/fixtures/driver-aliases")
    out = []
    for n, raw in enumerate(lines, 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        m = LINE_RE.match(line)
        if not m or m.group(2) not in BUSES:
            raise RetrofiError(f"malformed line {raw.strip()!r}", where=f"{path}:{n}",
                               fix="write MODULE BUS VENDOR:DEVICE, BUS one of "
                                   f"{', '.join(BUSES)}, IDs as 4 hex digits "
                                   "(mt7921e pci 14c3:7961)")
        out.append(DeviceId(m.group(1).replace("-", "_"), m.group(2), m.group(3).lower(),
                            m.group(4).lower(), n))
    if not out:
        raise RetrofiError("the driver ID list names no device", where=path,
                           fix="add lines MODULE BUS VENDOR:DEVICE")
    return out


def modalias(bus, vendor, device):
    """The modalias the bus core writes for a device with these IDs (the
    class fields of a Wi-Fi function; USB's interface class ff, which both
    USB_DEVICE() and USB_DEVICE_AND_INTERFACE_INFO(..., 0xff, 0xff, 0xff)
    match)."""
    v, d = vendor.upper(), device.upper()
    if bus == "pci":
        return f"pci:v0000{v}d0000{d}sv00001234sd00005678bc02sc80i00"
    if bus == "usb":
        return f"usb:v{v}p{d}d0000dc00dsc00dp00icFFiscFFipFFin00"
    if bus == "sdio":
        return f"sdio:c00v{v}d{d}"
    raise ValueError(f"bus {bus!r}: not one of {', '.join(BUSES)}")


def _module_name(ko):
    return os.path.basename(ko)[:-3].replace("-", "_")


def guest_lines(ids, modules, off=()):
    """/etc/retrofi-driver-aliases for a build that made `modules` (.ko
    paths) and switched off `off` (("<path>.ko" or "<dir>/", why), ...)."""
    built = {_module_name(m) for m in modules}
    why_off = {}
    for what, why in off:
        if what.endswith(".ko"):
            why_off.setdefault(_module_name(what), why)
    out, said = [], set()
    for i in ids:
        if i.module in built:
            out.append(i.text)
        elif i.module not in said:
            said.add(i.module)
            reason = (f"off: {why_off[i.module]}" if i.module in why_off
                      else "not selected by this build's configuration")
            out.append(f"# {i.module}: not built ({reason})")
    return "".join(l + "\n" for l in out)
