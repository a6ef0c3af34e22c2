//! Values between Python and twofold: Python input values (ints, nested
//! lists, numpy arrays, dicts for structs) to JSON for twofold's JSON input
//! reader; output bits to Python values (ints, numpy arrays of the C
//! element type, dicts for structs); and descriptions of the values' types.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::Value;
use twofold::inputs::{assign_given, Givers, JsonInput};
use twofold::load::{Loaded, ValueKind};
use twofold_circuit::value::to_hex;
use twofold_compiler::{CType, CValue};
use twofold_protocol::PartyInputs;

use crate::errors::{input_error, InputError};

/// The bits of the input values in `inputs` (a dict keyed by input name),
/// checked as the command line checks `-i` values: names, owners (those of
/// `givers`), shapes and ranges.
pub fn party_inputs(
    loaded: &Loaded,
    inputs: &Bound<'_, PyDict>,
    givers: Givers,
) -> PyResult<PartyInputs> {
    let mut values = Vec::with_capacity(inputs.len());
    for (name, value) in inputs.iter() {
        let name: String = name
            .extract()
            .map_err(|_| InputError::new_err("input names are strings"))?;
        let json = to_json(&value)
            .map_err(|e| InputError::new_err(format!("input `{name}`: {}", e.value(value.py()))))?;
        values.push((name, json));
    }
    let given: Vec<JsonInput> = values
        .iter()
        .map(|(name, value)| JsonInput { name, value })
        .collect();
    assign_given(loaded, &given, givers).map_err(input_error)
}

/// A Python value as JSON: `bool`, `int` (as a string past 64 bits), `float`,
/// `str`, lists and tuples, dicts with string keys, and anything with
/// `tolist()` (numpy arrays and scalars).
fn to_json(value: &Bound<'_, PyAny>) -> PyResult<Value> {
    if let Ok(b) = value.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if value.is_instance_of::<PyInt>() {
        if let Ok(v) = value.extract::<i64>() {
            return Ok(Value::from(v));
        }
        if let Ok(v) = value.extract::<u64>() {
            return Ok(Value::from(v));
        }
        return Ok(Value::String(value.str()?.to_string()));
    }
    if let Ok(f) = value.cast::<PyFloat>() {
        return Ok(serde_json::Number::from_f64(f.value())
            .map_or_else(|| Value::String(f.to_string()), Value::Number));
    }
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(Value::String(s.to_string()));
    }
    if let Ok(d) = value.cast::<PyDict>() {
        let mut map = serde_json::Map::new();
        for (k, v) in d.iter() {
            let key: String = k
                .extract()
                .map_err(|_| PyValueError::new_err("struct member names are strings"))?;
            map.insert(key, to_json(&v)?);
        }
        return Ok(Value::Object(map));
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        return value
            .try_iter()?
            .map(|item| to_json(&item?))
            .collect::<PyResult<Vec<_>>>()
            .map(Value::Array);
    }
    if value.hasattr("tolist")? {
        return to_json(&value.call_method0("tolist")?);
    }
    Err(PyValueError::new_err(format!(
        "a {} is not a value (give ints, lists, numpy arrays or dicts)",
        value.get_type().name()?
    )))
}

/// The numpy dtype of a C scalar type (`None` for other types).
fn dtype(ty: &CType) -> Option<String> {
    match ty {
        CType::Bool => Some("bool".into()),
        CType::Int { bits, signed } => Some(format!("{}int{bits}", if *signed { "" } else { "u" })),
        CType::Float { bits } => Some(format!("float{bits}")),
        _ => None,
    }
}

/// The element type and the dimensions of a (nested) array type.
fn peel(mut ty: &CType) -> (&CType, Vec<usize>) {
    let mut shape = Vec::new();
    while let CType::Array(element, n) = ty {
        shape.push(*n as usize);
        ty = element;
    }
    (ty, shape)
}

/// A value's bits as a Python value: an int for a Bristol value.
pub fn to_py(py: Python<'_>, kind: &ValueKind, bits: &[bool]) -> PyResult<Py<PyAny>> {
    match kind {
        ValueKind::Int => {
            let int = py.get_type::<PyInt>().call1((to_hex(bits), 16))?;
            Ok(int.unbind())
        }
        ValueKind::C(ty) => c_to_py(py, ty, ty.json_value(bits)),
    }
}

/// A C value as a Python value: ints, numpy arrays for arrays of scalars,
/// dicts for structs, lists for arrays of structs.
fn c_to_py(py: Python<'_>, ty: &CType, value: CValue) -> PyResult<Py<PyAny>> {
    Ok(match (ty, value) {
        (CType::Bool, CValue::Int(v)) => PyBool::new(py, v != 0).to_owned().into_any().unbind(),
        (_, CValue::Int(v)) => v.into_pyobject(py)?.into_any().unbind(),
        (_, CValue::Float { bits, width }) => {
            real(bits, width).into_pyobject(py)?.into_any().unbind()
        }
        (CType::Struct(s), CValue::List(items)) => {
            let dict = PyDict::new(py);
            for ((name, field), item) in s.fields.iter().zip(items) {
                dict.set_item(name, c_to_py(py, field, item)?)?;
            }
            dict.into_any().unbind()
        }
        (CType::Array(element, _), CValue::List(items)) => match dtype(peel(ty).0) {
            Some(dtype) => {
                let numpy = py.import("numpy")?;
                let nested = plain(py, CValue::List(items))?;
                numpy.call_method1("array", (nested, dtype))?.unbind()
            }
            None => {
                let items = items
                    .into_iter()
                    .map(|item| c_to_py(py, element, item))
                    .collect::<PyResult<Vec<_>>>()?;
                PyList::new(py, items)?.into_any().unbind()
            }
        },
        (_, CValue::List(_)) => {
            return Err(PyValueError::new_err(format!(
                "a value of {} cannot be a list",
                ty.name()
            )))
        }
    })
}

/// A `float` (32 bits) or `double` (64) bit pattern as a Python float.
fn real(bits: u64, width: u32) -> f64 {
    if width == 32 {
        f64::from(f32::from_bits(bits as u32))
    } else {
        f64::from_bits(bits)
    }
}

/// Nested lists of ints and floats.
fn plain(py: Python<'_>, value: CValue) -> PyResult<Py<PyAny>> {
    match value {
        CValue::Int(v) => Ok(v.into_pyobject(py)?.into_any().unbind()),
        CValue::Float { bits, width } => {
            Ok(real(bits, width).into_pyobject(py)?.into_any().unbind())
        }
        CValue::List(items) => {
            let items = items
                .into_iter()
                .map(|item| plain(py, item))
                .collect::<PyResult<Vec<_>>>()?;
            Ok(PyList::new(py, items)?.into_any().unbind())
        }
    }
}

/// The type of a value as a dict: `type` (a numpy dtype name, `struct`,
/// or `bits` for a Bristol value), `shape` (the array dimensions, `()` for
/// one value), `ctype` (the C type's name), `width` (bits) and, for
/// structs, `members` (each member's dict by name).
pub fn describe<'py>(
    py: Python<'py>,
    kind: &ValueKind,
    width: u32,
) -> PyResult<Bound<'py, PyDict>> {
    match kind {
        ValueKind::Int => {
            let dict = PyDict::new(py);
            dict.set_item("type", "bits")?;
            dict.set_item("shape", PyTuple::empty(py))?;
            dict.set_item("ctype", format!("{width} bits"))?;
            dict.set_item("width", width)?;
            Ok(dict)
        }
        ValueKind::C(ty) => describe_c(py, ty),
    }
}

/// [`describe`] for a C type.
fn describe_c<'py>(py: Python<'py>, ty: &CType) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    let (element, shape) = peel(ty);
    match (dtype(element), element) {
        (Some(dtype), _) => dict.set_item("type", dtype)?,
        (None, CType::Struct(s)) => {
            dict.set_item("type", "struct")?;
            let members = PyDict::new(py);
            for (name, field) in &s.fields {
                members.set_item(name, describe_c(py, field)?)?;
            }
            dict.set_item("members", members)?;
        }
        (None, other) => dict.set_item("type", other.name())?,
    }
    dict.set_item("shape", PyTuple::new(py, shape)?)?;
    dict.set_item("ctype", ty.name())?;
    dict.set_item("width", ty.width())?;
    Ok(dict)
}

/// A JSON value (a report) as Python dicts, lists, numbers and strings.
pub fn json_to_py(py: Python<'_>, value: &Value) -> PyResult<Py<PyAny>> {
    Ok(match value {
        Value::Null => py.None(),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any().unbind(),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => i.into_pyobject(py)?.into_any().unbind(),
            (_, Some(u), _) => u.into_pyobject(py)?.into_any().unbind(),
            (_, _, f) => f.unwrap_or(f64::NAN).into_pyobject(py)?.into_any().unbind(),
        },
        Value::String(s) => PyString::new(py, s).into_any().unbind(),
        Value::Array(items) => {
            let items = items
                .iter()
                .map(|item| json_to_py(py, item))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any().unbind()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, json_to_py(py, v)?)?;
            }
            dict.into_any().unbind()
        }
    })
}

/// The output values `outputs` of `loaded` as a dict keyed by output name.
pub fn outputs_to_py<'py>(
    py: Python<'py>,
    loaded: &Loaded,
    outputs: &[Vec<bool>],
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    let values = loaded.outputs.iter().zip(&loaded.output_kinds);
    for (((name, _), kind), bits) in values.zip(outputs) {
        dict.set_item(name, to_py(py, kind, bits)?)?;
    }
    Ok(dict)
}
