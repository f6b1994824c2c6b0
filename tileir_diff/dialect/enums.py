"""Tile IR enums: wire value = position in the tuple; names as the text syntax spells them."""

ENUMS = {
    "MemoryOrderingSemantics": ("weak", "relaxed", "acquire", "release", "acq_rel"),
    "MemoryScope": ("tl_blk", "device", "sys"),
    "RoundingMode": ("nearest_even", "zero", "negative_inf", "positive_inf", "approx", "full",
                     "nearest_int_to_zero", "nearest_away"),
    "Signedness": ("unsigned", "signed"),
    "IntegerOverflow": ("none", "no_signed_wrap", "no_unsigned_wrap", "no_wrap"),
    "ComparisonPredicate": ("equal", "not_equal", "less_than", "less_than_or_equal", "greater_than",
                            "greater_than_or_equal"),
    "ComparisonOrdering": ("unordered", "ordered"),
    "AtomicRMWMode": ("and", "or", "xor", "add", "addf", "max", "min", "umax", "umin", "xchg"),
    "PaddingValue": ("zero", "neg_zero", "nan", "pos_inf", "neg_inf"),
    "SymbolVisibility": ("public", "private"),
    "MultimemReductionKind": ("add", "min", "max", "and", "or", "xor", "umin", "umax"),
    # The optional attribute byte of pointer and tensor_view types (13.4+): printed as
    # ``ptr<f32, <multicast>>`` and ``#cuda_tile.ptr_attr<multicast>``.
    "PtrAttr": ("none", "unicast", "multicast"),
}

# RoundingMode.nearest_away only exists from 13.4 on.
ENUM_VALUE_SINCE = {("RoundingMode", "nearest_away"): (13, 4)}

PADDING_VALUES = ENUMS["PaddingValue"]
PTR_ATTRS = ENUMS["PtrAttr"]
