"""The real uiautomator2 client (3.7.x) against the virtual phone's u2.jar server, through Google's adb.

The client pushes its own u2.jar, starts it with its own command line and talks HTTP JSON-RPC over adb to
device tcp:9008, exactly as with a phone; the tests then look at the phone's state, not at the server.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import time
import zipfile
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, TypeVar
from xml.etree import ElementTree as etree

import adbutils
import pytest
import uiautomator2 as u2
from uiautomator2.exceptions import RPCUnknownError, UiObjectNotFoundError

from relay_desktop.sim.config import REALISTIC, PhoneConfig
from relay_desktop.sim.phone import VirtualPhone
from relay_desktop.sim.service import VirtualPhoneService
from relay_desktop.sim.streams import ProcessIO
from relay_desktop.sim.u2_rpc import RpcServer
from relay_desktop.sim.u2_server import CLASS_NAME, kill_servers
from relay_desktop.sim.u2_service import AutomatorService
from tests.conftest import AdbTestServer
from tests.waiting import until

T = TypeVar("T")
JAR = Path(u2.__file__).parent / "assets" / "u2.jar"
LAUNCH = "CLASSPATH=/data/local/tmp/u2.jar app_process / com.wetest.uia2.Main -p 9008"
CONTACTS = "com.google.android.contacts"


async def blocking(func: Callable[..., T], *args: Any, timeout: float = 20) -> T:
    """The u2 client is synchronous: run it off the loop the phone lives on, with a deadline."""
    return await asyncio.wait_for(asyncio.to_thread(func, *args), timeout)


@pytest.fixture
async def commands(sim: VirtualPhoneService) -> list[str]:
    seen: list[str] = []
    sim.phone.faults.before_command = seen.append
    return seen


@pytest.fixture
async def d(adb_server: AdbTestServer, sim: VirtualPhoneService, commands: list[str]) -> AsyncIterator[u2.Device]:
    device = adb_server.client().device(sim.serial)
    client = await blocking(u2.connect, device, timeout=60)
    try:
        yield client
    finally:
        await blocking(lambda: client.stop_uiautomator(wait=False))


def nodes(xml: str, **attrs: str) -> list[etree.Element]:
    root = etree.fromstring(xml.encode("utf-8"))
    return [n for n in root.iter("node") if all(n.get(k) == v for k, v in attrs.items())]


def center(node: etree.Element) -> tuple[int, int]:
    left, top, right, bottom = map(int, re.findall(r"\d+", node.get("bounds", "")))
    return (left + right) // 2, (top + bottom) // 2


def raw_http(device: adbutils.AdbDevice, request: bytes, responses: int = 1) -> bytes:
    """Bytes sent on one connection to device tcp:9008, and what comes back until `responses` replies."""
    with device.create_connection(adbutils.Network.TCP, 9008) as conn:
        conn.settimeout(10)
        conn.sendall(request)
        data = b""
        while data.count(b"HTTP/1.1 ") < responses or not _complete(data, responses):
            chunk = conn.recv(65536)
            if not chunk:
                break
            data += chunk
        return data


def _complete(data: bytes, responses: int) -> bool:
    parts = data.split(b"HTTP/1.1 ")[1:]
    if len(parts) < responses:
        return False
    head, _, body = parts[-1].partition(b"\r\n\r\n")
    length = re.search(rb"Content-Length: (\d+)", head)
    return length is not None and len(body) >= int(length.group(1))


# ---------------------------------------------------------------- start-up, as the client does it


async def test_the_client_pushes_its_jar_and_starts_the_server_by_its_command_line(
        d: u2.Device, sim: VirtualPhoneService, commands: list[str]) -> None:
    pushed = sim.phone.fs.read("/data/local/tmp/u2.jar")
    assert hashlib.md5(pushed).hexdigest() == hashlib.md5(JAR.read_bytes()).hexdigest()
    assert commands == ["toybox md5sum /data/local/tmp/u2.jar", LAUNCH]
    assert "tcp:9008" in sim.phone.sockets
    assert await blocking(d._check_alive)
    # What the server printed on its shell stream, read by the client's own thread (which may lag on a busy
    # machine: /ping can answer before that thread has read the lines).
    deadline = time.monotonic() + 5
    while "http server listening" not in d._process.output.decode() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    output = d._process.output.decode()
    assert "[server] INFO: [UiAutomator2Server] Starting Server" in output
    assert "[server] INFO: http server listening on *:9008" in output
    # Started again, the client finds the jar by its md5 and the server by /ping: no second push, no launch.
    again = await blocking(u2.connect, d.adb_device)
    assert commands[2:] == ["toybox md5sum /data/local/tmp/u2.jar"] and again._process is None


async def test_a_missing_or_foreign_jar_fails_as_on_a_phone(adb_server: AdbTestServer, sim: VirtualPhoneService,
                                                            tmp_path: Path) -> None:
    def run() -> tuple[int, str]:
        result = adb_server.run("-s", sim.serial, "shell", LAUNCH)
        return result.returncode, (result.stdout + result.stderr).decode()

    code, output = await blocking(run)
    assert code == 1 and f'java.lang.ClassNotFoundException: Didn\'t find class "{CLASS_NAME}"' in output
    foreign = tmp_path / "u2.jar"  # a jar, but not u2's: its dex does not define the class
    with zipfile.ZipFile(foreign, "w") as jar:
        jar.writestr("classes.dex", b"dex\n035\x00Lcom/genymobile/scrcpy/Server;")
    pushed = await blocking(adb_server.run, "-s", sim.serial, "push", str(foreign), "/data/local/tmp/u2.jar")
    assert pushed.returncode == 0, pushed
    code, output = await blocking(run)
    assert code == 1 and "ClassNotFoundException" in output and "tcp:9008" not in sim.phone.sockets


# ---------------------------------------------------------------- what the client reads


async def test_dump_hierarchy_is_the_screen_the_phone_shows(d: u2.Device, sim: VirtualPhoneService) -> None:
    sim.phone.launch("com.android.settings")
    xml = await blocking(d.dump_hierarchy)
    assert "\r\n  <node " in xml and not xml.endswith("\n")  # Android's serializer: CRLF, no final newline
    item = nodes(xml, text="Network & internet")
    assert item and item[0].get("package") == "com.android.settings"
    assert item[0].get("visible-to-user") == "true" and item[0].get("display-id") == "0"
    packages = {n.get("package") for n in etree.fromstring(xml.encode()).findall("node")}
    assert packages == {"com.android.settings", "com.android.systemui"}  # every window, system bars too
    active = await blocking(lambda: d.dump_hierarchy(root_in_active=True))
    assert {n.get("package") for n in etree.fromstring(active.encode()).findall("node")} == {"com.android.settings"}
    shallow = etree.fromstring((await blocking(lambda: d.dump_hierarchy(max_depth=1))).encode())
    tops = shallow.findall("node")  # maxDepth 1: each window's root and its children, nothing deeper
    assert any(top.findall("node") for top in tops) and not any(top.findall("node/node") for top in tops)


async def test_info_window_size_and_current_app(d: u2.Device, sim: VirtualPhoneService) -> None:
    info = await blocking(lambda: d.info)
    assert info == {"currentPackageName": "com.android.launcher3", "displayHeight": 2400,
                    "displayRotation": 0, "displaySizeDpX": 411, "displaySizeDpY": 914, "displayWidth": 1080,
                    "productName": "relay_sim", "screenOn": True, "sdkInt": 34, "naturalOrientation": True}
    assert await blocking(d.window_size) == (1080, 2400)
    device_info = await blocking(lambda: d.device_info)  # getprop, not the server
    assert device_info["model"] == "Relay Virtual Phone" and device_info["sdk"] == 34
    sim.phone.launch("com.android.settings")
    assert (await blocking(d.app_current))["package"] == "com.android.settings"
    assert (await blocking(lambda: d.info))["currentPackageName"] == "com.android.settings"
    sim.phone.rotate(1)
    assert await blocking(d.window_size) == (2400, 1080)
    info = await blocking(lambda: d.info)
    assert info["displayRotation"] == 1 and not info["naturalOrientation"] and info["displayWidth"] == 2400


async def test_screenshot_is_the_phone_s_picture(d: u2.Device) -> None:
    image = await blocking(d.screenshot)
    assert image.size == (1080, 2400) and image.format == "JPEG"


# ---------------------------------------------------------------- what the client does


async def test_click_on_an_element_opens_it(d: u2.Device, sim: VirtualPhoneService) -> None:
    phone = sim.phone
    phone.launch("com.android.settings")
    item = nodes(await blocking(d.dump_hierarchy), text="Network & internet")[0]
    await blocking(d.click, *center(item))
    await until(lambda: (phone.focused_activity() or ("", ""))[1].endswith("NetworkDashboardActivity"), 5)
    await blocking(d.press, "back")
    await until(lambda: phone.focused_activity() == ("com.android.settings", ".Settings"), 5)
    await blocking(lambda: d(text="Network & internet").click(timeout=5))  # selector: wait, objInfo, click
    await until(lambda: (phone.focused_activity() or ("", ""))[1].endswith("NetworkDashboardActivity"), 5)
    with pytest.raises(UiObjectNotFoundError):
        await blocking(lambda: d(text="No such setting").info)


async def test_swipe_scrolls_the_list(d: u2.Device, sim: VirtualPhoneService) -> None:
    phone = sim.phone
    phone.launch(CONTACTS)  # the contact list is longer than the screen
    before = await blocking(d.dump_hierarchy)
    await blocking(d.swipe, 540, 1900, 540, 700, 0.3)  # 60 steps of 5 ms: a slow drag, not a fling
    assert phone.current_activity().scroll.get("contact_list", 0) > 0
    assert await blocking(d.dump_hierarchy) != before


async def test_send_keys_types_any_language_into_the_focused_field(d: u2.Device, sim: VirtualPhoneService) -> None:
    phone = sim.phone
    phone.launch(CONTACTS)
    search = f"{CONTACTS}:id/open_search_bar_text_view"
    await blocking(lambda: d(resourceId=search).click(timeout=5))
    await until(lambda: phone.keyboard_shown, 5)

    async def field() -> etree.Element:
        return nodes(await blocking(d.dump_hierarchy), **{"resource-id": search})[0]

    text = "Grüße 你好 18° 🔥"
    await blocking(d.send_keys, text)  # no AdbKeyboard on the phone: setClipboard, getClipboard, pasteClipboard
    assert phone.clipboard == text
    typed = await field()
    assert typed.get("text") == text and typed.get("focused") == "true"
    await blocking(d.clear_text)  # clearInputText: Ctrl+A, Del
    assert (await field()).get("text") == "Search contacts"  # the empty field reports its hint
    phone.clipboard = "from scrcpy"  # one clipboard for the whole phone
    assert await blocking(lambda: d.clipboard) == "from scrcpy"


# ---------------------------------------------------------------- errors and the end of the server


async def test_http_and_json_rpc_answers_are_the_real_server_s(d: u2.Device) -> None:
    with pytest.raises(RPCUnknownError, match="-32601 method not found"):
        await blocking(d.jsonrpc.noSuchMethod)
    device = d.adb_device
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "noSuchMethod", "params": []}).encode()
    post = (b"POST /jsonrpc/0 HTTP/1.1\r\nHost: 127.0.0.1:9008\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    reply = await blocking(raw_http, device, post)
    assert reply.startswith(b"HTTP/1.1 200 OK \r\nContent-Type: application/json\r\nDate: ")
    assert reply.endswith(b'\r\n\r\n{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found"}}')
    # Keep-alive: two requests on one connection, two answers; an unknown path is NanoHTTPD's 404.
    two = await blocking(raw_http, device, b"GET /ping HTTP/1.1\r\n\r\nGET /nope HTTP/1.1\r\n\r\n", 2)
    assert two.count(b"Connection: keep-alive") == 2 and b"\r\n\r\npong" in two
    assert b"HTTP/1.1 404 Not Found \r\nContent-Type: text/plain" in two and two.endswith(b"Not Found!!!")


async def test_killing_the_server_closes_its_port_and_the_client_restarts_it(
        d: u2.Device, sim: VirtualPhoneService, commands: list[str]) -> None:
    assert kill_servers(sim.phone) == 1
    assert "tcp:9008" not in sim.phone.sockets and not await blocking(d._check_alive)
    await blocking(d._process.wait, timeout=10)  # its adb shell stream ended with it
    # The next call fails, so the client starts the server again, as it does on a phone.
    assert (await blocking(lambda: d.info))["sdkInt"] == 34
    assert commands.count(LAUNCH) == 2
    await blocking(lambda: d.stop_uiautomator(wait=True))  # closing the shell stream ends the server
    assert "tcp:9008" not in sim.phone.sockets and not await blocking(d._check_alive)


async def test_stop_ends_the_server_and_its_shell(d: u2.Device, sim: VirtualPhoneService) -> None:
    reply = await blocking(raw_http, d.adb_device, b"GET /stop HTTP/1.1\r\n\r\n")
    assert reply.endswith(b"Server stopped!!!")
    await until(lambda: d._process.pool() is not None, 5)
    assert "tcp:9008" not in sim.phone.sockets


# ---------------------------------------------------------------- without adb: the RPC engine and the timing


async def test_command_line_options_are_parsed_as_by_commons_cli() -> None:
    phone = VirtualPhone()
    phone.fs.write("/data/local/tmp/u2.jar", JAR.read_bytes())

    async def run(args: str) -> tuple[int, str, str]:
        io, out, err = ProcessIO.collecting()
        code = await phone.run_shell(f"CLASSPATH=/data/local/tmp/u2.jar app_process / {CLASS_NAME} {args}", io)
        return code, out.decode(), err.decode()

    code, out, _ = await run("-h")
    assert code == 0 and out.startswith("usage: uiautomator2-server\n -h,--help ")
    assert await run("-p abc") == (1, "", "Invalid port: abc. Must be an integer between 1 and 65535.\n")
    assert await run("--port=70000") == (1, "", "Invalid port: 70000. Must be between 1 and 65535.\n")
    code, out, err = await run("-p")
    assert code == 1 and err == "Missing argument for option: p\n" and out.startswith("usage:")
    server = asyncio.create_task(run("--port 9009"))
    await until(lambda: "tcp:9009" in phone.sockets, 5)
    code, _, err = await run("-p 9009")  # a second server on the same port
    assert code == 1 and err.endswith("java.net.BindException: Address already in use\n"
                                      "\tat fi.iki.elonen.NanoHTTPD.start(NanoHTTPD.java)\n"
                                      "\tat com.wetest.uia2.Main.runServer(Main.java)\n"
                                      "\tat com.wetest.uia2.Main.main(Main.java)\n")
    assert kill_servers(phone) == 1
    code, out, err = await asyncio.wait_for(server, 5)
    assert code == 137 and out.endswith("[server] INFO: http server listening on *:9009\n") and "SLF4J" in err


async def test_json_rpc_edge_cases_follow_jsonrpc4j() -> None:
    phone = VirtualPhone()
    service = AutomatorService(phone)
    rpc = RpcServer(service.methods())
    assert await rpc.handle(b"{not json") == b'{"jsonrpc":"2.0","id":"null","error":{"code":-32700,' \
                                             b'"message":"JSON parse error"}}'
    too_many = json.loads(await rpc.handle(b'{"jsonrpc":"2.0","id":7,"method":"ping","params":[1]}'))
    assert too_many["error"] == {"code": -32602, "message": "method parameters invalid"}
    assert json.loads(await rpc.handle(b'{"jsonrpc":"2.0","id":"a","method":"ping","params":{}}')) == \
        {"jsonrpc": "2.0", "id": "a", "result": "pong"}
    void = json.loads(await rpc.handle(b'{"jsonrpc":"2.0","id":2,"method":"clearLastToast","params":[]}'))
    assert void == {"jsonrpc": "2.0", "id": 2, "result": None}
    missing = json.loads(await rpc.handle(b'{"jsonrpc":"2.0","id":3,"method":"objInfo","params":[{"text":"x"}]}'))
    assert missing["error"] == {"code": -32001, "message": "androidx.test.uiautomator.UiObjectNotFoundException",
                                "data": "UiSelector[TEXT=x]"}
    assert await rpc.handle(b'{"jsonrpc":"2.0","method":"ping"}') == b""  # a notification gets no answer
    service.close()


async def test_realistic_dump_takes_a_tenth_of_a_second_not_uiautomator_dump_s_seconds() -> None:
    phone = VirtualPhone(PhoneConfig(realism=REALISTIC))
    service = AutomatorService(phone)
    started = time.monotonic()
    xml = await service.dump(False, 50)
    elapsed = time.monotonic() - started
    assert REALISTIC.u2_dump_seconds <= elapsed < REALISTIC.dump_seconds and "<hierarchy" in xml
    service.close()
