// libxml2, GNOME's XML library (Debian's libxml2-dev), for reading GPX, TCX and KML in
// `loctrack trips`.
// Only Sources/LocTrackTrackFiles/XML imports this module, and only the program
// loctrack-trips links it: `loctrack` itself never loads libxml2 (nor the ICU it brings).
// The SAX2 push parser is all that is used: it reports each element as it is parsed, so
// that for a document that is cut short or corrupt, every element before the error has been
// seen. (The streaming xmlTextReader parses ahead of what it reports and drops what it had
// not reported yet when it meets an error.)
#ifndef LOCTRACK_LIBXML2_SHIM_H
#define LOCTRACK_LIBXML2_SHIM_H

#include <libxml/parser.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>

// XML_SAX2_MAGIC marks a SAX handler whose SAX2 fields (startElementNs, serror) are set; a
// macro of an unsigned constant, which Swift imports as a type it must then convert.
static const unsigned int loctrack_xml_sax2_magic = XML_SAX2_MAGIC;

#endif
