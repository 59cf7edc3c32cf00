// Writes the seed corpus of every fuzz target: small valid inputs of each kind, made here so
// nothing in it comes from elsewhere.
//
//   fuzz_corpus OUT-DIR GENERATORS-DIR
//
// OUT-DIR/<target>/ gets the seeds of each target; GENERATORS-DIR (the shipped definitions) is
// copied in as the generator definition seeds. Exit 0, or 1 with a message when a file cannot
// be written.
#include <stb_image_write.h>
#include <webp/encode.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "guard/base/atomic_file.h"
#include "guard/base/error.h"
#include "engine/media/image.h"
#include "engine/media/mesh_files.h"

namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<std::uint8_t>;

void put(const fs::path& dir, const std::string& name, const std::string_view bytes) {
    fs::create_directories(dir);
    stageload::writeFileAtomically(dir / name, bytes);
}
void put(const fs::path& dir, const std::string& name, const Bytes& bytes) {
    put(dir, name, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

stageload::Image pattern(int w, int h, int channels) {
    stageload::Image img(w, h, channels);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < channels; ++c)
                img.at(x, y)[c] = static_cast<std::uint8_t>((x * 37 + y * 11 + c * 80) % 256);
    return img;
}

void appendTo(void* context, void* data, int size) {
    auto* out = static_cast<Bytes*>(context);
    out->insert(out->end(), static_cast<std::uint8_t*>(data), static_cast<std::uint8_t*>(data) + size);
}

// Big-endian TIFF with IFD0 holding one Orientation entry.
Bytes tiffWithOrientation(int orientation) {
    return {'M', 'M', 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0,
            std::uint8_t(orientation), 0, 0, 0, 0, 0, 0};
}

void images(const fs::path& dir) {
    const auto rgb = pattern(8, 6, 3), rgba = pattern(6, 8, 4);
    put(dir, "rgb.png", stageload::encodePng(rgb));
    put(dir, "rgba.png", stageload::encodePng(rgba));
    put(dir, "gray.png", stageload::encodePng(pattern(5, 5, 1)));

    Bytes png = stageload::encodePng(rgb);  // with an eXIf chunk before the pixels
    const Bytes tiff = tiffWithOrientation(6);
    Bytes chunk = {0, 0, 0, std::uint8_t(tiff.size()), 'e', 'X', 'I', 'f'};
    chunk.insert(chunk.end(), tiff.begin(), tiff.end());
    chunk.insert(chunk.end(), {0, 0, 0, 0});
    png.insert(png.begin() + 33, chunk.begin(), chunk.end());
    put(dir, "exif-6.png", png);

    Bytes jpg;
    stbi_write_jpg_to_func(appendTo, &jpg, rgb.width, rgb.height, 3, rgb.pixels.data(), 90);
    put(dir, "plain.jpg", jpg);
    Bytes app1 = {0xFF, 0xE1, 0, std::uint8_t(8 + tiff.size()), 'E', 'x', 'i', 'f', 0, 0};
    app1.insert(app1.end(), tiff.begin(), tiff.end());
    jpg.insert(jpg.begin() + 2, app1.begin(), app1.end());
    put(dir, "exif-6.jpg", jpg);

    Bytes bmp, tga;
    stbi_write_bmp_to_func(appendTo, &bmp, rgb.width, rgb.height, 3, rgb.pixels.data());
    put(dir, "rgb.bmp", bmp);
    stbi_write_tga_to_func(appendTo, &tga, rgba.width, rgba.height, 4, rgba.pixels.data());
    put(dir, "rgba.tga", tga);

    std::uint8_t* webp = nullptr;
    const auto n = WebPEncodeLosslessRGBA(rgba.pixels.data(), rgba.width, rgba.height, rgba.width * 4, &webp);
    put(dir, "rgba.webp", Bytes(webp, webp + n));
    WebPFree(webp);
}

std::string safetensors(const std::string& header, std::size_t dataBytes) {
    std::string out(8, '\0');
    for (int i = 0; i < 8; ++i) out[std::size_t(i)] = char((header.size() >> (8 * i)) & 0xff);
    return out + header + std::string(dataBytes, '\x01');
}

void weightHeaders(const fs::path& dir) {
    put(dir, "one.safetensors",
        safetensors(R"({"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}})", 16));
    put(dir, "dtypes.safetensors",
        safetensors(R"({"__metadata__":{"format":"pt"},)"
                    R"("a":{"dtype":"BF16","shape":[3],"data_offsets":[0,6]},)"
                    R"("b":{"dtype":"I64","shape":[1,1],"data_offsets":[6,14]},)"
                    R"("c":{"dtype":"BOOL","shape":[2],"data_offsets":[14,16]},)"
                    R"("d":{"dtype":"U8","shape":[0,7],"data_offsets":[16,16]}})",
                    16));
    put(dir, "scalar.safetensors",
        safetensors(R"({"s":{"dtype":"F64","shape":[],"data_offsets":[0,8]}})", 8));
}

void traceLines(const fs::path& dir) {
    const char* lines[][2] = {
        {"start", R"({"type":"start","utc":"2026-10-05T03:14:39+00:00","interval":0.5,"mode":"staged","command":["sleep","1"]})"},
        {"sample", R"({"type":"sample","t":0.511,"footprint":293815328,"swap_used":12312248320,"level":88,"available":1048576,"cuda":12})"},
        {"stage", R"({"type":"event","kind":"stage","stage":"camera","name":"camera","t":3.795})"},
        {"load", R"({"type":"event","kind":"load","name":"flow","stage":"structure","nbytes":2715920416,"seconds":3.481,"t":12.165})"},
        {"release", R"({"type":"event","kind":"release","name":"rembg_model","stage":"camera","nbytes":884791968,"t":3.853})"},
        {"mark", R"({"type":"event","kind":"mark","note":"guard: stop: swap used 9.0 GB rose 6.0 GB","t":350.962})"},
        {"error", R"({"type":"error","t":0.5,"error":"sysctl failed"})"},
        {"end", R"({"type":"end"})"},
    };
    for (const auto& [name, line] : lines) put(dir, std::string(name) + ".jsonl", std::string(line));
}

void traces(const fs::path& dir) {
    const std::string head =
        R"({"type":"start","utc":"2026-10-05T03:14:39+00:00","interval":0.5,"mode":"staged"})" "\n"
        R"({"type":"sample","t":0.0,"footprint":291832792,"swap_used":12320636928,"level":89})" "\n"
        R"({"type":"event","kind":"stage","stage":"structure","name":"structure","t":1.0})" "\n"
        R"({"type":"event","kind":"load","name":"flow","stage":"structure","nbytes":2715920416,"seconds":0.8,"t":1.1})" "\n"
        R"({"type":"sample","t":1.5,"footprint":3007753208,"swap_used":12320636928,"level":70})" "\n"
        R"({"type":"event","kind":"stage","stage":"texture","name":"texture","t":2.0})" "\n"
        R"({"type":"event","kind":"release","name":"flow","stage":"texture","nbytes":2715920416,"t":2.01})" "\n"
        R"({"type":"event","kind":"load","name":"paint","stage":"texture","nbytes":1048576,"seconds":0.1,"t":2.1,"note":"outside_stage"})" "\n"
        R"({"type":"sample","t":2.5,"footprint":301832792,"swap_used":12420636928,"level":88,"cuda":3})" "\n";
    put(dir, "ended.jsonl", head + R"({"type":"end"})" "\n");
    put(dir, "guard-stop.jsonl",
        head + R"({"type":"event","kind":"mark","note":"guard: stop: available 1.0 GB under kill-free","t":2.6})" "\n"
               R"j({"type":"event","kind":"mark","note":"guard: exit: stopped by the guard (exit 3)","t":2.7})j" "\n"
               R"({"type":"end"})" "\n");
    put(dir, "stopped-at.jsonl",
        head + R"({"type":"event","kind":"mark","note":"stopped at texture","t":2.6})" "\n");
    put(dir, "half-written.jsonl", head + R"({"type":"sample","t":3.0,"foot)");
    put(dir, "crlf.jsonl", std::string(R"({"type":"sample","t":0.25,"footprint":7})") + "\r\n" +
                               R"({"type":"error","t":0.3,"error":"no swap"})" + "\r\n");
}

void plyMeshes(const fs::path& dir) {
    stageload::TexturedMesh tetra;
    tetra.positions = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    tetra.indices = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    tetra.normals = stageload::smoothNormals(tetra.positions, tetra.indices);
    tetra.uvs = {0, 0, 1, 0, 0, 1, 1, 1};
    tetra.texture = pattern(2, 2, 3);
    const auto written = stageload::writePly(tetra, dir / "tetra.ply");
    fs::remove(written.at(1));  // the texture is not an input of the target
    put(dir, "ascii.ply", std::string("ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\n"
                                      "property float y\nproperty float z\nproperty uchar red\n"
                                      "property float s\nproperty float t\nelement face 1\n"
                                      "property list uchar int vertex_indices\nend_header\n"
                                      "0 0 0 255 0 0\n1 0 0 0 1 0\n1 1 0 9 1 1\n0 1 0 7 0 1\n"
                                      "4 0 1 2 3\n"));
}

void generatorDefs(const fs::path& dir, const fs::path& shipped) {
    fs::create_directories(dir);
    for (const auto& e : fs::recursive_directory_iterator(shipped))
        if (e.is_regular_file() && e.path().extension() == ".json")
            fs::copy_file(e.path(), dir / e.path().filename(), fs::copy_options::overwrite_existing);
    put(dir, "minimal.json", std::string(R"({"name":"x","command":["true"]})"));
    put(dir, "params.json",
        std::string(R"({"name":"p","command":["gen","{{literal}}","--steps","{steps}","{input}"],)"
                    R"("params":{"steps":"25"},"env":{"A":"{run_dir}"},"format":"obj",)"
                    R"j("stage_pattern":"^\\[stage\\] (\\w+)","progress_pattern":"(\\d+)%\\|"})j"));
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s OUT-DIR GENERATORS-DIR\n", argv[0]);
        return 2;
    }
    const fs::path out = argv[1];
    try {
        images(out / "fuzz_image");
        fs::create_directories(out / "fuzz_mesh_ply");
        plyMeshes(out / "fuzz_mesh_ply");
        weightHeaders(out / "fuzz_weights_header");
        traceLines(out / "fuzz_trace_line");
        traces(out / "fuzz_trace");
        generatorDefs(out / "fuzz_generator_def", argv[2]);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "fuzz_corpus: %s\n", e.what());
        return 1;
    }
    std::printf("seed corpus written to %s\n", out.c_str());
    return 0;
}
