// SPDX-License-Identifier: MIT
/* vt_wrap_array.c - wrappers of CUDA arrays and mipmapped arrays.
 *
 * The driver does not say how much memory an array takes (alignment, tiling and
 * padding are its business), so the recorded size is an estimate from the descriptor:
 * width * height * depth (each at least 1) * bits per element / 8, where bits per
 * element is the format's channel size times NumChannels for the plain formats, and
 * a fixed per-pixel figure for the packed, planar-YUV and block-compressed ones. A
 * mipmapped array is the sum over its levels, each level halving every dimension that
 * is not a layer count (layered and cubemap depths stay). */
#include "vt_format.h"
#include "vt_global.h"
#include "vt_record.h"
#include "vt_wrap.h"

/* Bits per channel (plain formats) or, with *per_pixel set, per pixel. */
static uint64_t format_bits(CUarray_format f, int *per_pixel)
{
    *per_pixel = 0;
    switch ((int)f) {
    case CU_AD_FORMAT_UNSIGNED_INT8: case CU_AD_FORMAT_SIGNED_INT8:
    case CU_AD_FORMAT_UNORM_INT8X1: case CU_AD_FORMAT_UNORM_INT8X2: case CU_AD_FORMAT_UNORM_INT8X4:
    case CU_AD_FORMAT_SNORM_INT8X1: case CU_AD_FORMAT_SNORM_INT8X2: case CU_AD_FORMAT_SNORM_INT8X4:
        return 8;
    case CU_AD_FORMAT_UNSIGNED_INT16: case CU_AD_FORMAT_SIGNED_INT16: case CU_AD_FORMAT_HALF:
    case CU_AD_FORMAT_UNORM_INT16X1: case CU_AD_FORMAT_UNORM_INT16X2: case CU_AD_FORMAT_UNORM_INT16X4:
    case CU_AD_FORMAT_SNORM_INT16X1: case CU_AD_FORMAT_SNORM_INT16X2: case CU_AD_FORMAT_SNORM_INT16X4:
        return 16;
    case CU_AD_FORMAT_UNSIGNED_INT32: case CU_AD_FORMAT_SIGNED_INT32: case CU_AD_FORMAT_FLOAT:
        return 32;
    default:
        break;
    }
    *per_pixel = 1;
    switch ((int)f) {
    case CU_AD_FORMAT_BC1_UNORM: case CU_AD_FORMAT_BC1_UNORM_SRGB:
    case CU_AD_FORMAT_BC4_UNORM: case CU_AD_FORMAT_BC4_SNORM:
        return 4;
    case CU_AD_FORMAT_BC2_UNORM: case CU_AD_FORMAT_BC2_UNORM_SRGB:
    case CU_AD_FORMAT_BC3_UNORM: case CU_AD_FORMAT_BC3_UNORM_SRGB:
    case CU_AD_FORMAT_BC5_UNORM: case CU_AD_FORMAT_BC5_SNORM:
    case CU_AD_FORMAT_BC6H_UF16: case CU_AD_FORMAT_BC6H_SF16:
    case CU_AD_FORMAT_BC7_UNORM: case CU_AD_FORMAT_BC7_UNORM_SRGB:
        return 8;
    case CU_AD_FORMAT_NV12: return 12;
    case CU_AD_FORMAT_NV16: case CU_AD_FORMAT_YUY2: return 16;
    case CU_AD_FORMAT_P010: case CU_AD_FORMAT_P016:
    case CU_AD_FORMAT_Y444_PLANAR8: case CU_AD_FORMAT_YUV444_8bit_SemiPlanar: return 24;
    case CU_AD_FORMAT_P210: case CU_AD_FORMAT_P216: case CU_AD_FORMAT_Y210: case CU_AD_FORMAT_Y216:
    case CU_AD_FORMAT_AYUV: case CU_AD_FORMAT_Y410: case CU_AD_FORMAT_UNORM_INT_101010_2: return 32;
    case CU_AD_FORMAT_Y444_PLANAR10: case CU_AD_FORMAT_YUV444_16bit_SemiPlanar: return 48;
    case CU_AD_FORMAT_Y416: return 64;
    default: return 8;  /* unknown: a byte per pixel */
    }
}

static uint64_t element_bits(CUarray_format f, unsigned channels)
{
    int per_pixel;
    uint64_t b = format_bits(f, &per_pixel);
    return per_pixel ? b : b * (channels ? channels : 1);
}

static uint64_t one(uint64_t v) { return v ? v : 1; }

static uint64_t array_bytes(uint64_t w, uint64_t h, uint64_t d, CUarray_format f, unsigned ch)
{
    return (one(w) * one(h) * one(d) * element_bits(f, ch) + 7) / 8;
}

static uint64_t mipmap_bytes(const CUDA_ARRAY3D_DESCRIPTOR *a, unsigned levels)
{
    uint64_t w = one(a->Width), h = one(a->Height), d = one(a->Depth), sum = 0;
    int fixed_depth = (a->Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP)) != 0;
    uint64_t bits = element_bits(a->Format, a->NumChannels);
    for (unsigned l = 0; l < (levels ? levels : 1); l++) {
        sum += (w * h * d * bits + 7) / 8;
        if (w == 1 && h == 1 && (fixed_depth || d == 1)) break;
        w = one(w >> 1); h = one(h >> 1);
        if (!fixed_depth) d = one(d >> 1);
    }
    return sum;
}

/* ------------------------------------------------------------------------ *
 *  Wrappers
 * ------------------------------------------------------------------------ */
#define ARRAY_RECORD(kind, handle, bytes)                                                   \
    do {                                                                                    \
        if (r == CUDA_SUCCESS) vt_rec_alloc(kind, (uint64_t)(uintptr_t)(handle), bytes, 0, 0, VT_DEV_CTX); \
        else if (r == CUDA_ERROR_OUT_OF_MEMORY) vt_rec_oom(kind, bytes, 0, 0, VT_DEV_CTX);   \
    } while (0)

VT_EXPORT CUresult cuArrayCreate_v2(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *a)
{
    VT_WRAP_BEGIN(cuArrayCreate_v2, pHandle, a);
    ARRAY_RECORD(VT_KIND_ARRAY, r == CUDA_SUCCESS ? *pHandle : 0,
                 a ? array_bytes(a->Width, a->Height, 1, a->Format, a->NumChannels) : 0);
    VT_WRAP_END();
}

VT_EXPORT CUresult cuArrayCreate(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR_v1 *a)
{
    VT_WRAP_BEGIN(cuArrayCreate, pHandle, a);
    ARRAY_RECORD(VT_KIND_ARRAY, r == CUDA_SUCCESS ? *pHandle : 0,
                 a ? array_bytes(a->Width, a->Height, 1, a->Format, a->NumChannels) : 0);
    VT_WRAP_END();
}

VT_EXPORT CUresult cuArray3DCreate_v2(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *a)
{
    VT_WRAP_BEGIN(cuArray3DCreate_v2, pHandle, a);
    ARRAY_RECORD(VT_KIND_ARRAY3D, r == CUDA_SUCCESS ? *pHandle : 0,
                 a ? array_bytes(a->Width, a->Height, a->Depth, a->Format, a->NumChannels) : 0);
    VT_WRAP_END();
}

VT_EXPORT CUresult cuArray3DCreate(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR_v1 *a)
{
    VT_WRAP_BEGIN(cuArray3DCreate, pHandle, a);
    ARRAY_RECORD(VT_KIND_ARRAY3D, r == CUDA_SUCCESS ? *pHandle : 0,
                 a ? array_bytes(a->Width, a->Height, a->Depth, a->Format, a->NumChannels) : 0);
    VT_WRAP_END();
}

VT_EXPORT CUresult cuArrayDestroy(CUarray hArray)
{
    VT_WRAP_BEGIN(cuArrayDestroy, hArray);
    if (r == CUDA_SUCCESS) vt_rec_free(VT_KIND_ARRAY_DESTROY, (uint64_t)(uintptr_t)hArray, 0, 0, VT_DEV_CTX);
    VT_WRAP_END();
}

VT_EXPORT CUresult cuMipmappedArrayCreate(CUmipmappedArray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *a,
                                          unsigned int numMipmapLevels)
{
    VT_WRAP_BEGIN(cuMipmappedArrayCreate, pHandle, a, numMipmapLevels);
    ARRAY_RECORD(VT_KIND_MIPMAPPED_ARRAY, r == CUDA_SUCCESS ? *pHandle : 0,
                 a ? mipmap_bytes(a, numMipmapLevels) : 0);
    VT_WRAP_END();
}

VT_EXPORT CUresult cuMipmappedArrayDestroy(CUmipmappedArray h)
{
    VT_WRAP_BEGIN(cuMipmappedArrayDestroy, h);
    if (r == CUDA_SUCCESS) vt_rec_free(VT_KIND_MIPMAPPED_DESTROY, (uint64_t)(uintptr_t)h, 0, 0, VT_DEV_CTX);
    VT_WRAP_END();
}
