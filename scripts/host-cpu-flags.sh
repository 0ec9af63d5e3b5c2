#!/bin/sh
# Prints the swift build flags that target this machine's CPU, or nothing.
#
# When /proc/cpuinfo lists everything of x86-64-v3 (AVX2, FMA, BMI1/2, F16C, MOVBE, LZCNT), the
# build targets Haswell-class CPUs, so 8-lane SIMD compiles to 256-bit instructions; -DVIBES_HOST_CPU
# lets `vibes-analyze bench` report which build it is. Anything else (no /proc/cpuinfo, arm64, an
# older x86) gets the portable baseline build.
flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null) || exit 0
for feature in avx2 fma bmi1 bmi2 f16c movbe abm; do
    case " $flags " in
        *" $feature "*) ;;
        *) exit 0 ;;
    esac
done
echo "-Xswiftc -target-cpu -Xswiftc haswell -Xswiftc -DVIBES_HOST_CPU"
