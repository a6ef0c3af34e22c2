//! C types: integers, `_Bool`, arrays, structs, pointers; sizes and layout.

use std::sync::Arc;

mod function;
pub use function::FunctionType;

/// A struct or union type: its tag (if any) and members in order. One
/// that is declared but not (yet) defined, `struct Node;`, is incomplete:
/// it has no members (a definition needs at least one).
///
/// A union's members all start at its first byte; in a circuit a union is
/// laid out as its bytes (`unsigned char` leaves), and a member is read and
/// written as a view of them (see `lower::punning`).
///
/// A bit-field member's type in `fields` is its promoted type (`int`, or
/// `unsigned int` for an unsigned one of 32 bits; `_Bool` stays), which
/// its one leaf holds, already reduced to its width.
///
/// Two definitions are equal, and hash alike, where they have the same
/// tag and the same members, whatever their [`StructDef::id`]s: what a
/// value of the type is, and how it is laid out, is the same (a type read
/// back from a file's signature equals the one compiled).
#[derive(Clone, Debug, Default)]
pub struct StructDef {
    /// The struct tag, if it has one.
    pub name: Option<String>,
    /// Which struct or union type this is: the parser numbers them as it
    /// meets them (a tag declared again in an inner scope, or in another
    /// function, is another type); a type's incomplete declaration and its
    /// definition share the number. 0 where no parser made it (a file's
    /// signature).
    pub id: u32,
    /// Members: name and type, in declaration order.
    pub fields: Vec<(String, CType)>,
    /// A union rather than a struct.
    pub union: bool,
    /// Per member, its declared type and width if it is a bit-field
    /// (empty if no member is).
    pub bit_fields: Vec<Option<BitField>>,
    /// Unnamed bit-fields (padding, `int : 4;`, `int : 0;`), each with
    /// the number of the member it comes before.
    pub padding: Vec<(usize, BitField)>,
    /// Per member, the alignment in bytes its `_Alignas` (or GNU
    /// `aligned` attribute) asks (0: none); empty when no member has one.
    pub aligns: Vec<u64>,
    /// The most alignment in bytes a member takes from its type (0: no
    /// limit): 1 for a `packed` struct, `n` under `#pragma pack(n)`. The
    /// bit-fields of such a struct follow one another across storage
    /// units, as gcc lays them.
    pub pack: u64,
    /// The least alignment in bytes of the struct, as an `aligned(n)`
    /// attribute of its type asks (0: none).
    pub align: u64,
}

impl PartialEq for StructDef {
    fn eq(&self, other: &StructDef) -> bool {
        self.identity() == other.identity()
    }
}

impl Eq for StructDef {}

impl std::hash::Hash for StructDef {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.identity().hash(state);
    }
}

/// A bit-field's declared (integer or `_Bool`) type and width in bits.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BitField {
    /// The declared type (its storage unit).
    pub ty: CType,
    /// The width in bits.
    pub width: u32,
}

/// A struct's C layout: where each member starts, in bits; where the last
/// ends; its alignment.
struct Layout {
    starts: Vec<u64>,
    end: u64,
    align: u64,
}

impl StructDef {
    /// All but the [`StructDef::id`].
    #[allow(clippy::type_complexity)]
    fn identity(
        &self,
    ) -> (
        &Option<String>,
        &[(String, CType)],
        bool,
        &[Option<BitField>],
        &[(usize, BitField)],
        &[u64],
        (u64, u64),
    ) {
        (
            &self.name,
            &self.fields,
            self.union,
            &self.bit_fields,
            &self.padding,
            &self.aligns,
            (self.pack, self.align),
        )
    }

    /// Whether the struct is defined (has members).
    pub fn is_complete(&self) -> bool {
        !self.fields.is_empty()
    }

    /// The alignment in bytes of member `k` (of type `t`): its type's
    /// (at most [`Self::pack`]), or the stricter one its `_Alignas` asks.
    fn member_align(&self, k: usize, t: &CType) -> u64 {
        self.packed(t.align())
            .max(self.aligns.get(k).copied().unwrap_or(0))
    }

    /// The alignment `natural` a member's type has, limited to
    /// [`Self::pack`].
    fn packed(&self, natural: u64) -> u64 {
        match self.pack {
            0 => natural,
            p => natural.min(p),
        }
    }

    /// Member `name`, or a member of an anonymous struct or union member
    /// (named `""`; C11): its type and its offset in leaves.
    pub fn member(&self, name: &str) -> Option<(&CType, usize)> {
        self.locate(name, false).map(|(t, at, _)| (t, at as usize))
    }

    /// Member `name` (as [`Self::member`]) of a value whose leaves are
    /// bytes if `bytes`: its type, its offset (in bytes if it lies in a
    /// union or `bytes`, else in leaves) and whether it does.
    pub fn locate(&self, name: &str, bytes: bool) -> Option<(&CType, u64, bool)> {
        let bytes = bytes || self.union;
        let offsets = self.offsets(bytes);
        for ((n, t), at) in self.fields.iter().zip(offsets) {
            if n == name {
                return Some((t, at, bytes));
            }
            if let (true, CType::Struct(inner)) = (n.is_empty(), t) {
                if let Some((t, o, b)) = inner.locate(name, bytes) {
                    return Some((t, at + o, b));
                }
            }
        }
        None
    }

    /// Where each member starts: in bytes (C layout; a bit-field's first
    /// byte) if `bytes`, else in leaves (a union's members all start at 0).
    fn offsets(&self, bytes: bool) -> Vec<u64> {
        if bytes {
            return self.layout().starts.iter().map(|b| b / 8).collect();
        }
        let mut offs = Vec::with_capacity(self.fields.len());
        let mut at = 0u64;
        for (_, t) in &self.fields {
            offs.push(if self.union { 0 } else { at });
            at += t.leaves() as u64;
        }
        offs
    }

    /// The C layout (gcc's on x86-64): members in order at their
    /// alignment; a bit-field right after the one before unless it would
    /// cross a storage unit of its declared type (then at the next one;
    /// in a packed struct it may), an unnamed `: 0` moves to the next
    /// unit, and unnamed bit-fields do not align the struct. A union's
    /// members all start at 0. The struct is aligned as its strictest
    /// member, or as its `aligned` attribute asks if that is stricter.
    fn layout(&self) -> Layout {
        let mut l = Layout {
            starts: Vec::with_capacity(self.fields.len()),
            end: 0,
            align: self.align.max(1),
        };
        let packed = self.pack != 0;
        let mut padding = self.padding.iter().peekable();
        for (k, (_, t)) in self.fields.iter().enumerate() {
            while let Some((_, bf)) = padding.next_if(|(at, _)| *at == k) {
                l.end = bf.place(l.end, packed);
            }
            let base = if self.union { 0 } else { l.end };
            let (start, end) = match self.bit_field_at(k) {
                Some(bf) => {
                    l.align = l.align.max(self.packed(bf.ty.align()));
                    let end = bf.place(base, packed);
                    (end - u64::from(bf.width), end)
                }
                None => {
                    let a = self.member_align(k, t);
                    l.align = l.align.max(a);
                    let start = base.div_ceil(a * 8) * a * 8;
                    (start, start + t.size() * 8)
                }
            };
            l.starts.push(start);
            l.end = l.end.max(end);
        }
        for (_, bf) in padding {
            l.end = bf.place(l.end, packed);
        }
        l
    }

    /// Member `k`'s bit-field, if it is one.
    pub fn bit_field_at(&self, k: usize) -> Option<&BitField> {
        self.bit_fields.get(k).and_then(Option::as_ref)
    }

    /// The bit where member `name` (or a member of an anonymous member)
    /// starts, in C's layout.
    pub fn bit_start(&self, name: &str) -> Option<u64> {
        let starts = self.layout().starts;
        self.fields
            .iter()
            .zip(starts)
            .find_map(|((n, t), at)| match t {
                _ if n == name => Some(at),
                CType::Struct(inner) if n.is_empty() => inner.bit_start(name).map(|b| at + b),
                _ => None,
            })
    }

    /// The bit-field named `name` (a member, or one of an anonymous
    /// member), if it is one.
    pub fn bit_field(&self, name: &str) -> Option<&BitField> {
        self.fields
            .iter()
            .enumerate()
            .find_map(|(k, (n, t))| match t {
                _ if n == name => self.bit_field_at(k),
                CType::Struct(inner) if n.is_empty() => inner.bit_field(name),
                _ => None,
            })
    }

    /// `struct` or `union`.
    pub fn keyword(&self) -> &'static str {
        if self.union {
            "union"
        } else {
            "struct"
        }
    }
}

impl BitField {
    /// Where a bit-field placed at the first bit free, `at`, ends (see
    /// [`StructDef::layout`]); one of a `packed` struct may cross units.
    fn place(&self, at: u64, packed: bool) -> u64 {
        let unit = self.ty.size() * 8;
        let width = u64::from(self.width);
        let crosses = at / unit != (at + width - 1) / unit;
        if width == 0 || (crosses && !packed) {
            at.div_ceil(unit) * unit + width
        } else {
            at + width
        }
    }

    /// The type its value has in expressions (the integer promotion of a
    /// bit-field): `int` if it holds every value, else `unsigned int`;
    /// `_Bool` stays `_Bool`.
    pub fn promoted(&self) -> CType {
        match self.ty.scalar() {
            Some(s) if s.width == 1 => CType::Bool,
            Some(s) if self.width == 32 && !s.signed => CType::Int {
                bits: 32,
                signed: false,
            },
            _ => CType::INT,
        }
    }
}

/// `unsigned char`: a byte of a union (see [`StructDef`]).
const BYTE: CType = CType::Int {
    bits: 8,
    signed: false,
};

/// A C type of the supported subset.
///
/// Integer types are described by width and signedness (`char` is signed,
/// `long` is 64-bit, as with gcc on x86-64). In a circuit, a value is laid
/// out as its scalars (struct members and array elements in order, bit 0
/// first), without C padding; `_Bool` takes one bit.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CType {
    /// `void`.
    Void,
    /// `_Bool` (one bit in a circuit, one byte in C's layout).
    Bool,
    /// An integer type of 8, 16, 32 or 64 bits.
    Int {
        /// Width in bits.
        bits: u32,
        /// Signed or unsigned.
        signed: bool,
    },
    /// A binary floating-point type: `float` (32 bits) or `double` (64).
    Float {
        /// Width in bits.
        bits: u32,
    },
    /// An array of a fixed number of elements.
    Array(Arc<CType>, u32),
    /// A struct.
    Struct(Arc<StructDef>),
    /// A pointer (only inside the program, never an input or output).
    Pointer(Arc<CType>),
    /// A function type: what a function pointer points to (a function
    /// designator decays to a pointer to it; no object has this type).
    Function(Arc<FunctionType>),
}

/// A scalar's type as the lowering sees it: width and signedness
/// (`_Bool` is width 1, unsigned), or a floating-point width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Scalar {
    /// Width in bits: 1, 8, 16, 32 or 64.
    pub width: u32,
    /// Signed or unsigned (floating-point types count as signed).
    pub signed: bool,
    /// A floating-point type (`float` or `double`) rather than an integer.
    pub float: bool,
}

impl Scalar {
    /// `int`
    pub const INT: Scalar = Scalar::int(32, true);
    /// `_Bool`
    pub const BOOL: Scalar = Scalar::int(1, false);

    /// The integer type of `width` bits (1 for `_Bool`).
    pub const fn int(width: u32, signed: bool) -> Scalar {
        Scalar {
            width,
            signed,
            float: false,
        }
    }

    /// The floating-point type of `width` bits (32 or 64).
    pub const fn float(width: u32) -> Scalar {
        Scalar {
            width,
            signed: true,
            float: true,
        }
    }

    /// The C type of this scalar.
    pub fn ctype(self) -> CType {
        if self.float {
            CType::Float { bits: self.width }
        } else if self.width == 1 {
            CType::Bool
        } else {
            CType::Int {
                bits: self.width,
                signed: self.signed,
            }
        }
    }

    /// The integer promotion of this type (floating types stay as they are).
    pub fn promote(self) -> Scalar {
        if self.width < 32 && !self.float {
            Scalar::INT
        } else {
            self
        }
    }

    /// The common type of the usual arithmetic conversions.
    pub fn common(a: Scalar, b: Scalar) -> Scalar {
        if a.float || b.float {
            let w = |s: Scalar| if s.float { s.width } else { 0 };
            return Scalar::float(w(a).max(w(b)));
        }
        let (a, b) = (a.promote(), b.promote());
        if a == b {
            return a;
        }
        if a.width != b.width {
            return if a.width > b.width { a } else { b };
        }
        Scalar::int(a.width, false)
    }

    /// Bit mask of the width.
    pub fn mask(self) -> u64 {
        if self.width >= 64 {
            u64::MAX
        } else {
            (1u64 << self.width) - 1
        }
    }

    /// The least and greatest value of this (integer) type.
    pub fn bounds(self) -> (i128, i128) {
        if self.signed {
            (
                -(1i128 << (self.width - 1)),
                (1i128 << (self.width - 1)) - 1,
            )
        } else {
            (0, (1i128 << self.width) - 1)
        }
    }

    /// A raw bit pattern of this type as a mathematical integer.
    pub fn to_i128(self, v: u64) -> i128 {
        let v = v & self.mask();
        if self.signed && self.width < 128 && (v >> (self.width - 1)) & 1 == 1 {
            v as i128 - (1i128 << self.width)
        } else {
            v as i128
        }
    }
}

impl std::fmt::Display for CType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

impl CType {
    /// `int`
    pub const INT: CType = CType::Int {
        bits: 32,
        signed: true,
    };

    /// The function type this pointer type points to, if it is a
    /// function pointer.
    pub fn pointed_function(&self) -> Option<&Arc<FunctionType>> {
        match self {
            CType::Pointer(t) => match &**t {
                CType::Function(f) => Some(f),
                _ => None,
            },
            _ => None,
        }
    }

    /// The incomplete struct a value of this type would hold (itself, or
    /// its element type), if any: such a type has no size.
    pub fn incomplete(&self) -> Option<&CType> {
        match self {
            CType::Struct(s) if !s.is_complete() => Some(self),
            CType::Array(e, _) => e.incomplete(),
            _ => None,
        }
    }

    /// This type with the incomplete structs in it (behind pointers and in
    /// arrays) replaced by the definitions `definition` gives by
    /// [`StructDef::id`]; `None` where nothing changes.
    pub fn completed(&self, definition: &dyn Fn(u32) -> Option<Arc<StructDef>>) -> Option<CType> {
        match self {
            CType::Struct(s) if !s.is_complete() => definition(s.id).map(CType::Struct),
            CType::Array(e, n) => Some(CType::Array(Arc::new(e.completed(definition)?), *n)),
            CType::Pointer(e) => Some(CType::Pointer(Arc::new(e.completed(definition)?))),
            _ => None,
        }
    }

    /// Width in bits of a value of this type in a circuit (scalars packed in
    /// order, `_Bool` as one bit, no padding).
    pub fn width(&self) -> u32 {
        match self {
            CType::Void => 0,
            CType::Bool => 1,
            CType::Int { bits, .. } | CType::Float { bits } => *bits,
            CType::Array(e, n) => e.width().saturating_mul(*n),
            CType::Struct(s) if s.union => (self.size() as u32).saturating_mul(8),
            CType::Struct(s) => s.fields.iter().map(|(_, t)| t.width()).sum(),
            CType::Pointer(_) => 64,
            CType::Function(_) => 0,
        }
    }

    /// The scalar type, if this is an integer or `_Bool`.
    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            CType::Bool => Some(Scalar::BOOL),
            CType::Int { bits, signed } => Some(Scalar::int(*bits, *signed)),
            _ => None,
        }
    }

    /// The scalar type, if this is an arithmetic type: an integer, `_Bool`
    /// or a floating-point type.
    pub fn arith(&self) -> Option<Scalar> {
        match self {
            CType::Float { bits } => Some(Scalar::float(*bits)),
            t => t.scalar(),
        }
    }

    /// Number of scalar slots (leaves) in a value of this type.
    pub fn leaves(&self) -> usize {
        match self {
            CType::Void | CType::Function(_) => 0,
            CType::Array(e, n) => e.leaves().saturating_mul(*n as usize),
            CType::Struct(s) if s.union => self.size() as usize,
            CType::Struct(s) => s.fields.iter().map(|(_, t)| t.leaves()).sum(),
            _ => 1,
        }
    }

    /// The leaf types in order (scalars and pointers).
    pub fn leaf_types(&self, out: &mut Vec<CType>) {
        match self {
            CType::Void | CType::Function(_) => {}
            CType::Array(e, n) => {
                for _ in 0..*n {
                    e.leaf_types(out);
                }
            }
            CType::Struct(s) if s.union => {
                out.extend((0..self.size()).map(|_| BYTE));
            }
            CType::Struct(s) => {
                for (_, t) in &s.fields {
                    t.leaf_types(out);
                }
            }
            t => out.push(t.clone()),
        }
    }

    /// `sizeof` in bytes (C layout, LP64).
    pub fn size(&self) -> u64 {
        match self {
            // (`sizeof` of a function is 1, as gcc makes it.)
            CType::Void | CType::Function(_) => 1,
            CType::Bool => 1,
            CType::Int { bits, .. } | CType::Float { bits } => (*bits / 8) as u64,
            CType::Array(e, n) => e.size() * *n as u64,
            CType::Struct(_) => self.struct_layout().1,
            CType::Pointer(_) => 8,
        }
    }

    /// Alignment in bytes.
    pub fn align(&self) -> u64 {
        match self {
            CType::Array(e, _) => e.align(),
            CType::Struct(s) => s.layout().align,
            t => t.size().max(1),
        }
    }

    /// The type and byte offset (C layout) of member `name` of a struct
    /// or union.
    pub fn member_offset(&self, name: &str) -> Option<(CType, u64)> {
        let CType::Struct(s) = self else {
            return None;
        };
        s.locate(name, true).map(|(t, at, _)| (t.clone(), at))
    }

    /// Member byte offsets and total size of a struct or union.
    fn struct_layout(&self) -> (Vec<u64>, u64) {
        let CType::Struct(s) = self else {
            return (Vec::new(), self.size());
        };
        let l = s.layout();
        let end = l.end.div_ceil(8);
        (
            l.starts.iter().map(|b| b / 8).collect(),
            end.div_ceil(l.align) * l.align,
        )
    }

    /// Byte offset of every leaf within a value of this type (C layout).
    pub fn leaf_offsets(&self, base: u64, out: &mut Vec<u64>) {
        match self {
            CType::Void | CType::Function(_) => {}
            CType::Array(e, n) => {
                for k in 0..*n as u64 {
                    e.leaf_offsets(base + k * e.size(), out);
                }
            }
            CType::Struct(s) if s.union => out.extend(base..base + self.size()),
            CType::Struct(s) => {
                let (offs, _) = self.struct_layout();
                for ((_, t), o) in s.fields.iter().zip(offs) {
                    t.leaf_offsets(base + o, out);
                }
            }
            _ => out.push(base),
        }
    }

    /// Where each leaf's bits lie in C's layout, from bit `base` on: its
    /// first bit, how many (a bit-field's width; a `_Bool`'s whole byte;
    /// else its size), and whether it is a signed bit-field (whose leaf
    /// extends its sign).
    pub fn leaf_bits(&self, base: u64, out: &mut Vec<(u64, u32, bool)>) {
        match self {
            CType::Void | CType::Function(_) => {}
            CType::Array(e, n) => {
                for k in 0..*n as u64 {
                    e.leaf_bits(base + k * e.size() * 8, out);
                }
            }
            CType::Struct(s) if s.union => {
                out.extend((0..self.size()).map(|k| (base + k * 8, 8, false)))
            }
            CType::Struct(s) => {
                for (k, ((_, t), at)) in s.fields.iter().zip(s.layout().starts).enumerate() {
                    match s.bit_field_at(k) {
                        Some(bf) => {
                            let signed = bf.ty.scalar().is_some_and(|s| s.signed);
                            out.push((base + at, bf.width, signed));
                        }
                        None => t.leaf_bits(base + at, out),
                    }
                }
            }
            t => out.push((base, t.size() as u32 * 8, false)),
        }
    }

    /// For each leaf of a value of this type at bit `base`, where a
    /// pointer to it points: the start of the outermost value that begins
    /// at that leaf (before it only if the value starts with padding, as
    /// a struct whose first member is an unnamed bit-field does), `begin`
    /// for the first leaf.
    pub fn leaf_pointees(&self, base: u64, begin: u64, out: &mut Vec<u64>) {
        match self {
            CType::Void | CType::Function(_) => {}
            CType::Array(e, n) => {
                for k in 0..*n as u64 {
                    let at = base + k * e.size() * 8;
                    e.leaf_pointees(at, if k == 0 { begin } else { at }, out);
                }
            }
            CType::Struct(s) if s.union => {
                out.extend((0..self.size()).map(|k| if k == 0 { begin } else { base + k * 8 }))
            }
            CType::Struct(s) => {
                for (k, ((_, t), at)) in s.fields.iter().zip(s.layout().starts).enumerate() {
                    let first = if k == 0 { begin } else { base + at };
                    match s.bit_field_at(k) {
                        Some(_) => out.push(first),
                        None => t.leaf_pointees(base + at, first, out),
                    }
                }
            }
            _ => out.push(begin),
        }
    }

    /// Whether values of this type can be inputs or outputs of a circuit
    /// (unions cannot).
    pub fn is_data(&self) -> bool {
        match self {
            CType::Bool | CType::Int { .. } | CType::Float { .. } => true,
            CType::Array(e, _) => e.is_data(),
            CType::Struct(s) => !s.union && s.fields.iter().all(|(_, t)| t.is_data()),
            _ => false,
        }
    }

    /// Whether a value of this type holds a pointer (is one, or has one as
    /// a member or element): a write into it may be a write through it.
    pub fn holds_pointer(&self) -> bool {
        match self {
            CType::Pointer(_) => true,
            CType::Array(e, _) => e.holds_pointer(),
            CType::Struct(s) => s.fields.iter().any(|(_, f)| f.holds_pointer()),
            _ => false,
        }
    }

    /// Whether a value of this type holds a union (is one, or has one as
    /// a member or element).
    pub fn holds_union(&self) -> bool {
        match self {
            CType::Array(e, _) => e.holds_union(),
            CType::Struct(s) => s.union || s.fields.iter().any(|(_, t)| t.holds_union()),
            _ => false,
        }
    }

    /// Whether a value of this type holds a bit-field (named or not).
    pub fn holds_bit_field(&self) -> bool {
        match self {
            CType::Array(e, _) => e.holds_bit_field(),
            CType::Struct(s) => {
                !s.padding.is_empty()
                    || s.bit_fields.iter().any(Option::is_some)
                    || s.fields.iter().any(|(_, t)| t.holds_bit_field())
            }
            _ => false,
        }
    }

    /// A C spelling of the type (for messages).
    pub fn name(&self) -> String {
        match self {
            CType::Void => "void".into(),
            CType::Bool => "_Bool".into(),
            CType::Int { bits, signed } => {
                let base = match bits {
                    8 => "char",
                    16 => "short",
                    32 => "int",
                    64 => "long long",
                    _ => "__int128",
                };
                if *signed {
                    base.into()
                } else {
                    format!("unsigned {base}")
                }
            }
            CType::Float { bits } => if *bits == 32 { "float" } else { "double" }.into(),
            CType::Array(..) => {
                // Dimensions outermost first, as declared: `int[2][3]`.
                let mut dims = String::new();
                let mut t = self;
                while let CType::Array(e, n) = t {
                    dims.push_str(&format!("[{n}]"));
                    t = e;
                }
                format!("{}{dims}", t.name())
            }
            CType::Struct(s) => format!(
                "{} {}",
                s.keyword(),
                s.name.clone().unwrap_or_else(|| "<anonymous>".into())
            ),
            CType::Pointer(e) => match &**e {
                CType::Function(f) => f.spelling("(*)"),
                e => format!("{} *", e.name()),
            },
            CType::Function(f) => f.spelling(""),
        }
    }
}

/// Why `n` cannot be the size of an array of at most `max` elements, if it
/// cannot.
pub(crate) fn bad_array_size(n: i128, max: i128) -> Option<String> {
    if n < 0 {
        Some("array size is negative".into())
    } else if n > max {
        Some(format!(
            "array size is too large (more than {max} elements)"
        ))
    } else {
        None
    }
}
