#!/usr/bin/env python3
"""What a darknet cfg implies, for the darknet_*.sh tests: expect.py CFG TICS SIZEOF_LAYER SIZEOF_NETWORK.

Prints shell assignments (for eval) derived with darknet's own formulas (Debian's source,
0.0.0+git20180914): the layer geometry (parser.c, convolutional_layer.c, maxpool_layer.c), the
gemm and im2col_cpu calls of `darknet speed CFG TICS` (forward_convolutional_layer: per image
and group one gemm(0,0,m,n,k,1,A,k,B,n,1,C,n) with m = filters/groups, k = size*size*c/groups,
n = out_h*out_w, and one im2col_cpu unless size == 1; `speed` sets the batch to 1 and runs TICS
forward passes), and the heap darknet itself keeps: what each allocating function callocs and
never frees. Only [net], [convolutional] and [maxpool] are known; anything else is an error, so
a cfg the tests cannot reason about fails loudly."""
import json
import sys

F = 4  # sizeof(float), sizeof(int)


def sections(path):
    out = []
    with open(path) as f:
        for raw in f:
            line = raw.strip()
            if not line or line[0] in "#;":
                continue
            if line.startswith("["):
                out.append((line.strip("[]"), {}))
            else:
                k, v = line.split("=", 1)
                out[-1][1][k.strip()] = v.strip()
    return out


def main():
    cfg, tics, sz_layer, sz_network = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    secs = sections(cfg)
    if not secs or secs[0][0] not in ("net", "network"):
        sys.exit(f"{cfg}: the first section must be [net]")
    net = secs[0][1]
    h, w, c = int(net["height"]), int(net["width"]), int(net["channels"])
    inputs = h * w * c
    table, shapes = [], {}
    im2col = 0
    heap = {"make_network": sz_network + (len(secs) - 1) * sz_layer + 8 + F + F,
            "make_convolutional_layer": 0, "make_maxpool_layer": 0}
    workspace = 0
    for kind, o in secs[1:]:
        if kind in ("convolutional", "conv"):
            n = int(o.get("filters", 1))
            size = int(o.get("size", 1))
            stride = int(o.get("stride", 1))
            groups = int(o.get("groups", 1))
            padding = size // 2 if int(o.get("pad", 0)) else int(o.get("padding", 0))
            oh = (h + 2 * padding - size) // stride + 1
            ow = (w + 2 * padding - size) // stride + 1
            oc = n
            m, k, nn = n // groups, size * size * c // groups, oh * ow
            shapes[(m, nn, k)] = shapes.get((m, nn, k), 0) + groups * tics
            if size != 1:
                im2col += groups * tics
            nweights = c // groups * n * size * size
            # weights, weight_updates, biases, bias_updates, output, delta
            heap["make_convolutional_layer"] += F * (2 * nweights + 2 * n + 2 * oh * ow * oc)
            workspace = max(workspace, oh * ow * size * size * c // groups * F)
        elif kind in ("maxpool", "max"):
            stride = int(o.get("stride", 1))
            size = int(o.get("size", stride))
            padding = int(o.get("padding", size - 1))
            oh = (h + padding - size) // stride + 1
            ow = (w + padding - size) // stride + 1
            oc = c
            heap["make_maxpool_layer"] += 3 * F * oh * ow * oc  # indexes, output, delta
        else:
            sys.exit(f"{cfg}: [{kind}] is not modelled by expect.py")
        table.append(f"{w}x{h}x{c}->{ow}x{oh}x{oc}")  # as darknet prints it: w x h x c
        h, w, c = oh, ow, oc
    truths = h * w * c  # the last layer's outputs
    heap["parse_network_cfg"] = F * inputs + F * truths + workspace  # input, truth, workspace
    heap["make_image"] = F * inputs  # the input image `speed` makes
    flops = sum(2 * m * n * k * calls for (m, n, k), calls in shapes.items())
    # gemm bytes as tprof models them (DESIGN §4): A, B, and C read and written (BETA = 1).
    gbytes = sum(F * (m * k + k * n + 2 * m * n) * calls for (m, n, k), calls in shapes.items())
    print(f"LAYERS='{' '.join(table)}'")
    print(f"GEMM_CALLS={sum(shapes.values())}")
    print(f"GEMM_FLOPS={flops}")
    print(f"NUMOPS={flops // tics}")
    print(f"GEMM_BYTES={gbytes}")
    print(f"GEMM_SHAPES='{sorted((m, n, k, calls) for (m, n, k), calls in shapes.items())}'")
    print(f"IM2COL_CALLS={im2col}")
    print(f"WORKSPACE={workspace}")
    print(f"HEAP_BY_FN='{json.dumps(heap)}'")
    print(f"HEAP_OWN={sum(heap.values())}")


if __name__ == "__main__":
    main()
