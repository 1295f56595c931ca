#!/usr/bin/python3
"""renderdoc_tool - RenderDoc (Debian's python3-renderdoc) for the tests.

  renderdoc_tool.py capture --after SECONDS --stem STEM -- PROGRAM [ARGS...]
      Runs PROGRAM with RenderDoc's library preloaded and its Vulkan layer
      enabled (how RenderDoc launches a program), connects to it, asks for
      one frame's capture SECONDS after connecting and waits for it.  The
      program's output is passed through; then, on stderr:
        renderdoc: captured PATH frame N
      Exit status: the program's; 90 when no capture was made.
  renderdoc_tool.py replay CAPTURE.rdc OUT
      Replays the capture (RenderDoc's own replay, on the first device), moves
      to its last draw and writes that draw's first colour output, mip 0 and
      layer 0, as RenderDoc reads it back (tightly packed texels), to OUT;
      prints on stdout:
        renderdoc: replayed N actions, D draws, last draw E: W x H FORMAT, B bytes
"""
import os
import subprocess
import sys
import time

import renderdoc as rd


def die(msg, code=1):
    print("renderdoc_tool: " + msg, file=sys.stderr, flush=True)
    sys.exit(code)


def connect(pid, deadline):
    """The target control of process pid (RenderDoc numbers its targets from
    one port up; the one whose process is ours)."""
    while time.time() < deadline:
        ident = rd.EnumerateRemoteTargets("", 0)
        while ident:
            tc = rd.CreateTargetControl("", ident, "tracesmith-test", True)
            if tc is not None:
                if tc.Connected() and tc.GetPID() == pid:
                    return tc
                tc.Shutdown()
            ident = rd.EnumerateRemoteTargets("", ident)
        time.sleep(0.1)
    return None


def capture(argv):
    after, stem = None, None
    while argv and argv[0] != "--":
        if argv[0] == "--after" and len(argv) > 1:
            after, argv = float(argv[1]), argv[2:]
        elif argv[0] == "--stem" and len(argv) > 1:
            stem, argv = argv[1], argv[2:]
        else:
            die("capture: unknown option " + argv[0], 2)
    if after is None or stem is None or len(argv) < 2:
        die("usage: capture --after SECONDS --stem STEM -- PROGRAM [ARGS...]", 2)
    env = dict(os.environ)
    # after what is preloaded already (a sanitizer's runtime must come first)
    env["LD_PRELOAD"] = (env["LD_PRELOAD"] + ":" if env.get("LD_PRELOAD") else "") + "/usr/lib/librenderdoc.so"
    env["ENABLE_VULKAN_RENDERDOC_CAPTURE"] = "1"
    env["RENDERDOC_CAPFILE"] = stem
    proc = subprocess.Popen(argv[1:], env=env)
    tc = connect(proc.pid, time.time() + 30)
    if tc is None:
        proc.kill()
        proc.wait()
        die("capture: no RenderDoc target control for process %d" % proc.pid, 90)
    time.sleep(after)
    tc.TriggerCapture(1)
    path, frame = None, None
    deadline = time.time() + 120
    while path is None and time.time() < deadline and proc.poll() is None:
        msg = tc.ReceiveMessage(None)
        if msg.type == rd.TargetControlMessageType.NewCapture:
            path, frame = msg.newCapture.path, msg.newCapture.frameNumber
        elif msg.type == rd.TargetControlMessageType.Disconnected:
            break
    tc.Shutdown()
    rc = proc.wait()
    if path is None:
        die("capture: the program ended (status %d) with no capture made" % rc, 90)
    print("renderdoc: captured %s frame %d" % (path, frame), file=sys.stderr, flush=True)
    return rc


def replay(argv):
    if len(argv) != 2:
        die("usage: replay CAPTURE.rdc OUT", 2)
    rd.InitialiseReplay(rd.GlobalEnvironment(), [])
    cap = rd.OpenCaptureFile()
    if cap.OpenFile(argv[0], "", None) != rd.ResultCode.Succeeded:
        die("replay: cannot open " + argv[0])
    if cap.LocalReplaySupport() != rd.ReplaySupport.Supported:
        die("replay: RenderDoc cannot replay %s here" % argv[0])
    res, ctrl = cap.OpenCapture(rd.ReplayOptions(), None)
    if res != rd.ResultCode.Succeeded:
        die("replay: RenderDoc's replay of %s did not start: %s" % (argv[0], res))
    draws, actions = [], [0]

    def walk(acts):
        for a in acts:
            actions[0] += 1
            if a.flags & rd.ActionFlags.Drawcall:
                draws.append(a)
            walk(a.children)
    walk(ctrl.GetRootActions())
    if not draws:
        die("replay: %s has no draw" % argv[0])
    last = draws[-1]
    ctrl.SetFrameEvent(last.eventId, True)
    out = last.outputs[0]
    tex = [t for t in ctrl.GetTextures() if t.resourceId == out]
    if not tex:
        die("replay: the last draw's output is not a texture")
    data = bytes(ctrl.GetTextureData(out, rd.Subresource(0, 0, 0)))
    with open(argv[1], "wb") as f:
        f.write(data)
    t = tex[0]
    print("renderdoc: replayed %d actions, %d draws, last draw %d: %d x %d %s, %d bytes" %
          (actions[0], len(draws), last.eventId, t.width, t.height, t.format.Name(), len(data)),
          flush=True)
    ctrl.Shutdown()
    cap.Shutdown()
    rd.ShutdownReplay()
    return 0


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("capture", "replay"):
        die("usage: renderdoc_tool.py capture|replay ...", 2)
    sys.exit(capture(sys.argv[2:]) if sys.argv[1] == "capture" else replay(sys.argv[2:]))


main()
