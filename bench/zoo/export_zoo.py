#!/usr/bin/python3
"""Export tetune's PyTorch model zoo to ONNX, offline and reproducibly.

    /usr/bin/python3 bench/zoo/export_zoo.py [--out models/zoo] [--only a,b] [--force]

Pretrained weights cannot be downloaded here, so every model gets seeded random
weights (torch.manual_seed(0) before it is built): latency is the same as with
trained weights, and correctness is judged against onnxruntime on the same file.
So that the outputs are O(1) and an error check means something, BatchNorm
statistics are calibrated on seeded random batches and zero-initialised weights
get small random values (calibrate_batchnorm, fill_zero_weights).
Every export uses torch.onnx.export with opset 13, constant folding and fixed
shapes (no dynamic axes). For each model NAME it writes

    OUT/NAME.onnx            the model
    OUT/NAME.INPUT.npy       one seeded input per graph input (numpy, C order)

The model list (names, inputs, which run in CI) is mirrored in
bench/zoo/zoo_models.h; keep the two in step. A model whose file is already
there is skipped unless --force. Needs Debian's python3-torch 1.13 and
python3-torchvision 0.14 (tools/setup.sh --zoo); nothing else is imported.
"""

import argparse
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

OPSET = 13


# ---- models written here (no transformers package, no pretrained weights) ----

class BertLayer(nn.Module):
    """One post-norm BERT encoder layer: self-attention, then a GELU MLP."""

    def __init__(self, hidden, heads, ffn):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.proj = nn.Linear(hidden, hidden)
        self.ln1 = nn.LayerNorm(hidden, eps=1e-12)
        self.fc1 = nn.Linear(hidden, ffn)
        self.fc2 = nn.Linear(ffn, hidden)
        self.ln2 = nn.LayerNorm(hidden, eps=1e-12)

    def forward(self, x):
        b, s, h = x.shape
        d = h // self.heads
        q, k, v = self.qkv(x).reshape(b, s, 3, self.heads, d).permute(2, 0, 3, 1, 4)
        att = torch.softmax(q @ k.transpose(-1, -2) / (d ** 0.5), dim=-1)
        ctx = (att @ v).transpose(1, 2).reshape(b, s, h)
        x = self.ln1(x + self.proj(ctx))
        return self.ln2(x + self.fc2(F.gelu(self.fc1(x))))


class BertEncoder(nn.Module):
    """BERT-base shaped encoder: int64 token ids -> embedding Gather -> 12 layers."""

    def __init__(self, vocab=30522, hidden=768, layers=12, heads=12, ffn=3072, seq=128):
        super().__init__()
        self.word = nn.Embedding(vocab, hidden)
        self.pos = nn.Parameter(torch.randn(1, seq, hidden) * 0.02)
        self.ln = nn.LayerNorm(hidden, eps=1e-12)
        self.layers = nn.ModuleList(BertLayer(hidden, heads, ffn) for _ in range(layers))

    def forward(self, input_ids):
        x = self.ln(self.word(input_ids) + self.pos)
        for layer in self.layers:
            x = layer(x)
        return x


class SpeechLSTM(nn.Module):
    """Acoustic model: 80 log-mel features -> 2-layer LSTM(256) -> per-frame log-probs."""

    def __init__(self, feats=80, hidden=256, layers=2, tokens=32):
        super().__init__()
        self.lstm = nn.LSTM(feats, hidden, num_layers=layers, batch_first=True)
        self.out = nn.Linear(hidden, tokens)

    def forward(self, features):
        y, _ = self.lstm(features)
        return torch.log_softmax(self.out(y), dim=-1)


def conv_bn(cin, cout, k, s):
    return nn.Sequential(nn.Conv2d(cin, cout, k, s, k // 2, bias=False), nn.BatchNorm2d(cout), nn.SiLU())


class TinyYolo(nn.Module):
    """YOLO-style one-scale detector: conv backbone (stride 8), anchor-free head,
    box decode, then torchvision.ops.nms (exported as ONNX NonMaxSuppression).
    Outputs the kept boxes (K x 4, xyxy pixels), scores (K) and class ids (K)."""

    def __init__(self, size=320, classes=80, stride=8):
        super().__init__()
        self.stride = stride
        self.backbone = nn.Sequential(conv_bn(3, 16, 3, 2), conv_bn(16, 32, 3, 2), conv_bn(32, 64, 3, 2),
                                      conv_bn(64, 64, 3, 1), conv_bn(64, 128, 3, 1))
        self.head = nn.Conv2d(128, 5 + classes, 1)
        n = size // stride
        gy, gx = torch.meshgrid(torch.arange(n), torch.arange(n), indexing="ij")
        self.register_buffer("grid", torch.stack([gx, gy], -1).reshape(1, n * n, 2).float())

    def forward(self, x):
        p = self.head(self.backbone(x))
        p = p.flatten(2).permute(0, 2, 1).sigmoid()  # 1 x N x (5 + classes)
        xy = (p[..., 0:2] * 2 - 0.5 + self.grid) * self.stride
        wh = (p[..., 2:4] * 2) ** 2 * (4 * self.stride)
        boxes = torch.cat([xy - wh / 2, xy + wh / 2], -1)[0]
        scores, labels = (p[..., 4:5] * p[..., 5:]).max(-1)
        scores, labels = scores[0], labels[0]
        keep = torchvision.ops.nms(boxes, scores, 0.45)
        return boxes[keep], scores[keep], labels[keep]


def tv(ctor, **kw):
    return lambda: ctor(weights=None, **kw)


# name -> (builder, [(input name, shape, kind)], output names). kind: "float" (uniform
# [0,1)) or "ids:N" (int64 token ids in [0, N)).
IMAGE = [("x", (1, 3, 224, 224), "float")]
ZOO = {
    "resnet50": (tv(torchvision.models.resnet50), IMAGE, ["logits"]),
    "mobilenet_v3_large": (tv(torchvision.models.mobilenet_v3_large), IMAGE, ["logits"]),
    "efficientnet_b0": (tv(torchvision.models.efficientnet_b0), IMAGE, ["logits"]),
    "vit_b_16": (tv(torchvision.models.vit_b_16), IMAGE, ["logits"]),
    "squeezenet1_0": (tv(torchvision.models.squeezenet1_0), IMAGE, ["logits"]),
    "googlenet": (tv(torchvision.models.googlenet, aux_logits=False, init_weights=True), IMAGE, ["logits"]),
    "shufflenet_v2": (tv(torchvision.models.shufflenet_v2_x1_0), IMAGE, ["logits"]),
    "regnet_y_400mf": (tv(torchvision.models.regnet_y_400mf), IMAGE, ["logits"]),
    "resnext50_32x4d": (tv(torchvision.models.resnext50_32x4d), IMAGE, ["logits"]),
    "densenet121": (tv(torchvision.models.densenet121), IMAGE, ["logits"]),
    "swin_t": (tv(torchvision.models.swin_t), IMAGE, ["logits"]),
    "convnext_tiny": (tv(torchvision.models.convnext_tiny), IMAGE, ["logits"]),
    "bert_base": (BertEncoder, [("input_ids", (1, 128), "ids:30522")], ["hidden"]),
    "lstm_speech": (SpeechLSTM, [("features", (1, 100, 80), "float")], ["log_probs"]),
    "yolo_nms": (TinyYolo, [("x", (1, 3, 320, 320), "float")], ["boxes", "scores", "labels"]),
}

# Left out of CI (zoo_models.h says why: the size of their weights).
NOT_IN_CI = ["vit_b_16", "bert_base"]


def make_input(shape, kind, rng):
    if kind == "float":
        return rng.random(shape, dtype=np.float32)
    if kind.startswith("ids:"):
        return rng.integers(0, int(kind[4:]), size=shape, dtype=np.int64)
    raise ValueError("unknown input kind " + kind)


def fill_zero_weights(model):
    """Give normal(0, 0.02) values to weight tensors their constructor left at zero.

    torchvision zero-initialises some layers for training (ViT's classifier
    head and class token); with random weights elsewhere that would make the
    logits exactly 0 and the comparison with onnxruntime meaningless."""
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() >= 2 and not p.any():
                nn.init.normal_(p, std=0.02)


def calibrate_batchnorm(model, inputs, rng):
    """Set every BatchNorm's running statistics from 8 seeded random batches.

    With random weights and the default running stats (mean 0, var 1) the
    activations of a deep net shrink layer by layer (MobileNetV3's logits end
    near 1e-10), which makes an error check against atol 1e-4 vacuous. One pass
    in training mode with cumulative averaging (momentum None) normalises every
    BN to unit scale, as trained weights would, so outputs are O(1)."""
    bns = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return
    for bn in bns:
        bn.reset_running_stats()
        bn.momentum = None
    batch = tuple(torch.from_numpy(make_input((8,) + tuple(shape[1:]), kind, rng)) for _, shape, kind in inputs)
    model.train()
    with torch.no_grad():
        model(*batch)
    model.eval()


def export(name, out_dir, force):
    build, inputs, outputs = ZOO[name]
    path = os.path.join(out_dir, name + ".onnx")
    npys = [os.path.join(out_dir, "%s.%s.npy" % (name, i[0])) for i in inputs]
    if not force and all(os.path.exists(p) and os.path.getsize(p) > 0 for p in [path] + npys):
        print("[zoo] %s: present, skipped" % name)
        return
    t0 = time.time()
    torch.manual_seed(0)
    model = build().eval()
    fill_zero_weights(model)
    calibrate_batchnorm(model, inputs, np.random.default_rng(1))
    rng = np.random.default_rng(7)
    arrays = [make_input(shape, kind, rng) for _, shape, kind in inputs]
    args = tuple(torch.from_numpy(a) for a in arrays)
    tmp = path + ".tmp"
    torch.onnx.export(model, args, tmp, opset_version=OPSET, do_constant_folding=True,
                      input_names=[i[0] for i in inputs], output_names=outputs)
    os.replace(tmp, path)  # a killed export leaves no half-written model behind
    for p, a in zip(npys, arrays):
        np.save(p, a)
    print("[zoo] %s: %.1f MB in %.1f s" % (name, os.path.getsize(path) / 1e6, time.time() - t0))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--out", default=os.path.join(root, "models", "zoo"))
    ap.add_argument("--only", default="", help="comma-separated model names (default: all), or 'ci' (all but %s): %s"
                    % (",".join(NOT_IN_CI), ",".join(ZOO)))
    ap.add_argument("--force", action="store_true", help="re-export models already present")
    a = ap.parse_args()
    names = [n for n in a.only.split(",") if n] or list(ZOO)
    if names == ["ci"]:
        names = [n for n in ZOO if n not in NOT_IN_CI]
    unknown = [n for n in names if n not in ZOO]
    if unknown:
        sys.exit("export_zoo: unknown model(s) %s; known: %s" % (",".join(unknown), ",".join(ZOO)))
    os.makedirs(a.out, exist_ok=True)
    for n in names:
        export(n, a.out, a.force)


if __name__ == "__main__":
    main()
